/**
 * CB7 and CBT books end to end: scanned from the shared fixtures, their ComicInfo in the
 * catalogue, page lists, page bytes (compared with what 7-Zip extracts) and thumbnails over HTTP;
 * solid 7z books extracted once into files.archive_cache_dir.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { fixture } from "../helpers/fixtures";
import { forEachDatabase } from "../helpers/server";
import { fetchAs, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cb7": "unsupported/comicbox/Captain Science #001.cb7",
  "Captain Science/Captain Science #002.cbt": "unsupported/comicbox/Captain Science #001-cix.cbt",
  "Komga/7zip.7z": "unsupported/komga/7zip.7z",
};

/** The fixture's entries as Debian's 7-Zip extracts them (cbt: the tar inside the xz, then its entries). */
function extractedBy7zz(fixturePath: string): string {
  const out = mkdtempSync(join(tmpdir(), "longbox-7zz-"));
  const run = (args: string[]) => expect(Bun.spawnSync(["7zz", ...args, "-y", "-bd"]).exitCode).toBe(0);
  run(["x", `-o${out}`, fixture(fixturePath)]);
  const [single] = readdirSync(out);
  if (fixturePath.endsWith(".cbt") && single) run(["x", `-o${out}/tar`, join(out, single)]);
  return fixturePath.endsWith(".cbt") ? join(out, "tar") : out;
}

forEachDatabase("CB7 and CBT books", (server) => {
  let library: ScannedLibrary;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
  });
  const asReader = (path: string) => fetchAs(server(), library.readerToken, path);

  test("the books are catalogued with their format, page count and ComicInfo", async () => {
    const cb7 = library.books["Captain Science #001.cb7"]!;
    const cbt = library.books["Captain Science #002.cbt"]!;
    const single = library.books["7zip.7z"]!;
    expect([cb7.pageCount, cbt.pageCount, single.pageCount]).toEqual([5, 5, 1]);
    for (const [book, format] of [[cb7, "cb7"], [cbt, "cbt"], [single, "cb7"]] as const) {
      const { body } = await server().json("GET", `/api/v1/books/${book.id}`, undefined, { authorization: `Bearer ${library.readerToken}` });
      expect(body.fileFormat).toBe(format);
    }
    expect(cb7.title).toBe("The Beginning; The End");
    expect(cbt.title).toBe("The Beginning; The End");
  });

  for (const [name, source, mediaType] of [
    ["Captain Science #001.cb7", "unsupported/comicbox/Captain Science #001.cb7", "image/jpeg"],
    ["Captain Science #002.cbt", "unsupported/comicbox/Captain Science #001-cix.cbt", "image/jpeg"],
    ["7zip.7z", "unsupported/komga/7zip.7z", "image/png"],
  ] as const) {
    test(`${name}: page list, every page's exact bytes, a thumbnail`, async () => {
      const book = library.books[name]!;
      const pages = await asReader(`/api/v1/books/${book.id}/pages`);
      expect(pages.status).toBe(200);
      const list = (await pages.json()) as { number: number; fileName: string; mediaType: string; width: number }[];
      expect(list.map((page) => page.number)).toEqual(Array.from({ length: book.pageCount }, (_, index) => index + 1));
      expect(list.every((page) => page.mediaType === mediaType && page.width > 0)).toBe(true);

      const extracted = extractedBy7zz(source);
      try {
        for (const page of list) {
          const response = await asReader(`/api/v1/books/${book.id}/pages/${page.number}`);
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toBe(mediaType);
          expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(readFileSync(join(extracted, page.fileName))));
        }
      } finally {
        rmSync(extracted, { recursive: true, force: true });
      }
      expect((await asReader(`/api/v1/books/${book.id}/pages/${book.pageCount + 1}`)).status).toBe(404);

      const thumbnail = await asReader(`/api/v1/books/${book.id}/thumbnail`);
      expect(thumbnail.status).toBe(200);
      expect((await sharp(new Uint8Array(await thumbnail.arrayBuffer())).metadata()).format).toBe("webp");
    });
  }

  test("solid and compressed books were extracted into the archive cache under the data folder", () => {
    const cache = join(server().dir, "data", "archive-cache");
    // The solid cb7 and the xz cbt (the non-solid single-PNG 7z is read entry by entry).
    expect(readdirSync(cache).filter((name) => !name.endsWith(".partial"))).toHaveLength(2);
  });
});
