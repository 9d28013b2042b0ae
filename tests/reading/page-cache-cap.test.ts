/**
 * The page cache stays within `files.page_cache_max_mb`: resized pages are cached until the
 * total passes the cap, then the least recently used go (down to 90% of the cap), and a page
 * asked for again is not the one that goes.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import sharp from "sharp";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, createLibrary, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const CAP_BYTES = 1024 * 1024;
const WIDTH = 500;
const PAGES = 14;

/** A page of random pixels: JPEG cannot shrink it, so its resized copy weighs a few hundred KB. */
async function noisyPage(seed: number): Promise<Uint8Array> {
  const pixels = new Uint8Array(1000 * 1500 * 3);
  for (let index = 0, state = seed; index < pixels.length; index++) {
    state = (state * 1103515245 + 12345) >>> 0;
    pixels[index] = state >>> 24;
  }
  return new Uint8Array(await sharp(pixels, { raw: { width: 1000, height: 1500, channels: 3 } }).jpeg({ quality: 90 }).toBuffer());
}

/** The cached pages: file name -> size. */
function cachedPages(folder: string): Map<string, number> {
  const files = new Map<string, number>();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.set(entry.name, statSync(join(entry.parentPath, entry.name)).size);
  }
  return files;
}

const total = (files: Map<string, number>) => [...files.values()].reduce((sum, size) => sum + size, 0);

const pageCacheRoot = tempFolder("longbox-page-cache-");
const root = tempFolder();
const entries: Record<string, Uint8Array> = {};
for (let page = 1; page <= PAGES; page++) entries[`${String(page).padStart(3, "0")}.jpg`] = await noisyPage(page);
mkdirSync(join(root, "Noise"), { recursive: true });
writeFileSync(join(root, "Noise", "Noise 1.cbz"), zipSync(entries, { level: 0 }));

forEachDatabase("the page cache's cap", (server) => {
  let admin: Record<string, string>;
  let bookId: string;
  let fileHash: string;
  const folder = pageCacheRoot;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    const library = await createLibrary(server(), admin, { path: root });
    expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksAdded: 1 });
    ({ id: bookId, fileHash } = (await booksOf(server(), admin, library.id))[0]!);
    // The run on the other database (stopped by now) used the same folder; this server reads
    // the folder's index on its first page.
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder);
  });

  test("resized pages are cached up to the cap, least recently used out first", async () => {
    const fetchPage = async (number: number) => {
      const response = await server().fetch(`/api/v1/books/${bookId}/pages/${number}?width=${WIDTH}`, { headers: admin });
      expect(response.status).toBe(200);
      return (await response.arrayBuffer()).byteLength;
    };
    const first = await fetchPage(1);
    // A few pages pass the cap, and more than two fit under it.
    expect(first).toBeGreaterThan(CAP_BYTES / 8);
    expect(first).toBeLessThan(CAP_BYTES / 3);
    // A cached page is named by its tag alone (the book's content hash, the page number and the
    // width), without an extension: a name found without knowing the media type.
    const cachedName = (number: number) => Bun.SHA256.hash(`${fileHash}:${number}:${WIDTH}`, "hex");
    expect([...cachedPages(folder).keys()]).toEqual([cachedName(1)]);
    let asked = 1;
    let fetched = first;
    for (let number = 2; number <= PAGES; number++) {
      fetched += await fetchPage(number);
      asked++;
      const cached = cachedPages(folder);
      expect(total(cached)).toBeLessThanOrEqual(CAP_BYTES);
      // Page 1, used again after every new page, is never the least recently used.
      expect([...cached.keys()]).toContain(cachedName(1));
      await fetchPage(1);
    }
    expect(fetched).toBeGreaterThan(1.5 * CAP_BYTES);
    const left = cachedPages(folder);
    // Some pages went, the oldest first; the last one did not.
    expect(left.size).toBeLessThan(asked);
    expect([...left.keys()]).toContain(cachedName(PAGES));
    expect([...left.keys()]).not.toContain(cachedName(2));
  });
}, { files: { page_cache_max_mb: 1, page_cache_dir: pageCacheRoot } });
