/**
 * Reading reuses open archives (issue 14): stored RAR entries are located in the file and read
 * without unrar, and an archive changed on disk is opened again rather than served from memory.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { OpenArchives } from "../../src/formats/open-archives.ts";
import { fixture } from "../helpers/fixtures.ts";
import { registry } from "./registry-setup.ts";

const fileRange = async (path: string, range: { offset: number; length: number }) =>
  new Uint8Array(await Bun.file(path).slice(range.offset, range.offset + range.length).arrayBuffer());

describe("RAR entries stored without compression", () => {
  test("are located in the file, and those bytes are the pages unrar extracts from the solid (compressed) twin", async () => {
    for (const version of ["rar4", "rar5"]) {
      const stored = fixture(`cbr/komga/${version === "rar4" ? "rar4" : "rar5"}.rar`);
      const solid = fixture(`cbr/komga/${version}-solid.rar`);
      const location = await registry.locatePage(stored, 1);
      expect(location).not.toBeNull();
      const fromFile = await fileRange(stored, location!);
      expect(location!.mediaType).toBe("image/png");
      // The solid archive's entries are compressed: only unrar can produce them.
      expect(await registry.locatePage(solid, 1)).toBeNull();
      const extracted = await registry.readPage(solid, 1);
      expect(Buffer.compare(fromFile, extracted.bytes)).toBe(0);
      expect(Buffer.compare((await registry.readPage(stored, 1)).bytes, extracted.bytes)).toBe(0);
    }
  });

  test("a compressed or encrypted entry is never offered as a file range", async () => {
    expect(await registry.locatePage(fixture("cbr/comicbox/Captain Science #001-cbi.cbr"), 1)).toBeNull();
    expect(await registry.locatePage(fixture("cbr/komga/rar5-solid.rar"), 2)).toBeNull();
  });
});

describe("open archives", () => {
  /** A one-page CBZ (the page stored) at `path` in a temporary folder; `rewrite` replaces it with a longer page, written later. */
  async function withRewrittenBook(check: (path: string, rewrite: () => void) => Promise<void>): Promise<void> {
    const folder = mkdtempSync(join(tmpdir(), "longbox-open-archives-"));
    const path = join(folder, "book.cbz");
    const write = (text: string) => writeFileSync(path, zipSync({ "001.jpg": new TextEncoder().encode(text) }, { level: 0 }));
    write("first");
    try {
      await check(path, () => {
        write("second, longer");
        utimesSync(path, new Date(), new Date(Date.now() + 5000));
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  test("a book rewritten on disk is read anew, not from the archive kept open", () =>
    withRewrittenBook(async (path, rewrite) => {
      const first = await registry.locatePage(path, 1);
      rewrite();
      const second = await registry.locatePage(path, 1);
      expect(second!.length).toBe("second, longer".length);
      expect(second!.length).not.toBe(first!.length);
    }));

  test("the file's size and modification time the caller just stat'ed decide, with no stat of its own", () =>
    withRewrittenBook(async (path, rewrite) => {
      const stamp = statSync(path);
      expect((await registry.locatePage(path, 1, { file: stamp }))!.length).toBe("first".length);
      rewrite();
      // The caller's (now outdated) stamp is taken at its word: the archive kept open answers.
      expect((await registry.locatePage(path, 1, { file: stamp }))!.length).toBe("first".length);
      // The stamp of the file as it is now: opened anew.
      expect((await registry.locatePage(path, 1, { file: statSync(path) }))!.length).toBe("second, longer".length);
    }));

  test("keeps at most its count and its bytes, least recently used out first; shares one opening", async () => {
    const folder = mkdtempSync(join(tmpdir(), "longbox-open-archives-"));
    try {
      const files = ["a", "b", "c"].map((name) => {
        const path = join(folder, name);
        copyFileSync(fixture("cbr/komga/rar4.rar"), path);
        return path;
      });
      const opened: string[] = [];
      const archives = new OpenArchives(2, 1000);
      const open = (path: string, weight = 100) =>
        archives.open("test", path, async () => (opened.push(path), { path }), () => weight);
      const [one, two] = await Promise.all([open(files[0]!), open(files[0]!)]);
      expect(one).toBe(two);
      await open(files[1]!);
      await open(files[0]!); // a is now the most recently used
      await open(files[2]!); // over the count: b goes
      await open(files[0]!);
      await open(files[1]!);
      expect(opened.map((path) => path.slice(-1))).toEqual(["a", "b", "c", "b"]);
      await open(files[2]!, 2000); // heavier than the whole budget: kept by nobody
      await open(files[2]!);
      expect(opened.filter((path) => path.endsWith("c")).length).toBe(3);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
