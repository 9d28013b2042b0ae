/**
 * The cb7 and cbt plugins on archives crafted here: hostile 7z files made with Debian's 7-Zip
 * (7zz, installed by scripts/test.sh), tar files written with node-tar's header encoder; plain
 * tar pages located in the file for zero-copy, solid 7z extracted once into a bounded cache
 * (after the first page read, extracted alone).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { Header, Pax } from "tar";
import { failureReason } from "../../src/formats/errors.ts";
import { FormatRegistry, type RegistryOptions } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";
import { fixture } from "../helpers/fixtures.ts";
import { rejection } from "./registry-setup.ts";

const workDir = mkdtempSync(join(tmpdir(), "longbox-cb7-cbt-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const png = (seed: number) =>
  sharp({ create: { width: 10 + seed, height: 20, channels: 3, background: { r: seed * 40, g: 0, b: 0 } } }).png().toBuffer();

function registry(options: RegistryOptions = {}): FormatRegistry {
  return new FormatRegistry(builtinPlugins, { extractionCache: { dir: join(workDir, "cache-default"), maxBytes: 64 << 20 }, ...options });
}

/** Files written into a fresh folder, then `7zz a` run there with `args`. */
function sevenZip(name: string, files: Record<string, Uint8Array>, args: string[] = []): string {
  const source = mkdtempSync(join(workDir, "src-"));
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(join(source, path, ".."), { recursive: true });
    writeFileSync(join(source, path), bytes);
  }
  const archive = join(workDir, name);
  const run = Bun.spawnSync(["7zz", "a", ...args, archive, ...Object.keys(files)], { cwd: source });
  if (run.exitCode !== 0) throw new Error(`7zz failed: ${run.stderr.toString()}`);
  return archive;
}

interface TarFile {
  name: string;
  data: Uint8Array;
  type?: "File" | "Directory" | "SymbolicLink";
  /** Declared size when it should differ from the data (lies). */
  size?: number;
}

/** A tar built block by block: node-tar encodes each header (and pax header), the data is padded to 512 bytes. */
function tar(name: string, files: TarFile[]): string {
  const blocks: Uint8Array[] = [];
  for (const file of files) {
    const header = new Header({ path: file.name, mode: 0o644, size: file.size ?? file.data.length, type: file.type ?? "File", mtime: new Date(0) });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    // A name that does not fit the ustar fields goes into a pax extended header before it.
    if (header.needPax) blocks.push(new Pax({ path: file.name, mtime: new Date(0) }).encode());
    blocks.push(block, file.data, new Uint8Array((512 - (file.data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const path = join(workDir, name);
  writeFileSync(path, Buffer.concat(blocks));
  return path;
}

const analysisError = async (registryToUse: FormatRegistry, path: string) => {
  const analysis = await registryToUse.analyze(path);
  expect(analysis.result).toBeNull();
  return analysis.errors[0];
};

describe("cb7", () => {
  test("a non-solid archive: pages in order, each extracted on its own, ComicInfo read", async () => {
    const pages = { "b/02.png": await png(2), "b/01.png": await png(1), "ComicInfo.xml": new TextEncoder().encode("<ComicInfo><Series>Crafted</Series></ComicInfo>") };
    const path = sevenZip("nonsolid.cb7", pages, ["-ms=off"]);
    const analysis = await registry().analyze(path);
    expect(analysis.errors).toEqual([]);
    expect(analysis.result?.pages.map((page) => [page.fileName, page.width])).toEqual([["b/01.png", 11], ["b/02.png", 12]]);
    expect(analysis.result?.metadata?.values.series).toBe("Crafted");
    expect((await registry().readPage(path, 2)).bytes).toEqual(new Uint8Array(pages["b/02.png"]));
  });

  test("a solid archive: the first page read is extracted alone, then the archive once into the cache; a cap of 0 leaves nothing behind", async () => {
    const path = fixture("unsupported/comicbox/Captain Science #001.cb7");
    const cacheDir = join(workDir, "cache-solid");
    const cached = registry({ extractionCache: { dir: cacheDir, maxBytes: 64 << 20 } });
    const first = await cached.readPage(path, 1);
    expect(first.mediaType).toBe("image/jpeg");
    expect(readdirSync(cacheDir)).toEqual([]);
    const page = await cached.readPage(path, 3);
    expect(page.mediaType).toBe("image/jpeg");
    expect(readdirSync(cacheDir)).toHaveLength(1);
    expect((await cached.readPage(path, 1)).bytes).toEqual(first.bytes);
    const [folder] = readdirSync(cacheDir);
    expect(readdirSync(join(cacheDir, folder!, "Captain Science 001")).sort()).toContain("CaptainScience#1_03.jpg");
    expect((await cached.readPage(path, 3)).bytes).toEqual(page.bytes);

    const uncachedDir = join(workDir, "cache-zero");
    const uncached = registry({ extractionCache: { dir: uncachedDir, maxBytes: 0 } });
    expect((await uncached.readPage(path, 3)).bytes).toEqual(page.bytes);
    expect(readdirSync(uncachedDir)).toEqual([]);
  });

  test("7-Zip warmed ahead of a read (twice at once, as two book pages would) writes nothing to disk and leaves the next listing and reads exact", async () => {
    const pages = { "page.png": await png(3), "warm-up/page.png": await png(4) };
    const path = sevenZip("named-like-warm-up.cb7", pages, ["-ms=off"]);
    const filesBefore = readdirSync(workDir, { recursive: true }).sort();
    const cb7 = builtinPlugins.find((plugin) => plugin.id === "cb7")!;
    await Promise.all([cb7.warm!(), cb7.warm!()]);
    expect(readdirSync(workDir, { recursive: true }).sort()).toEqual(filesBefore);
    const analysis = await registry().analyze(path);
    expect(analysis.errors).toEqual([]);
    expect(analysis.result?.pages.map((page) => page.fileName)).toEqual(["page.png", "warm-up/page.png"]);
    expect((await registry().readPage(path, 1)).bytes).toEqual(new Uint8Array(pages["page.png"]));
    expect((await registry().readPage(path, 2)).bytes).toEqual(new Uint8Array(pages["warm-up/page.png"]));
  });

  test("the cache evicts the least recently used book past its cap", async () => {
    const cacheDir = join(workDir, "cache-lru");
    // Each extraction is about 25 KB: a 40 KB cap holds one book.
    const small = registry({ extractionCache: { dir: cacheDir, maxBytes: 40_000 } });
    const first = join(workDir, "first.cb7");
    const second = join(workDir, "second.cb7");
    copyFileSync(fixture("unsupported/comicbox/Captain Science #001.cb7"), first);
    copyFileSync(fixture("unsupported/comicbox/Captain Science #001.cb7"), second);
    // The first page of each is extracted alone; the second fills the cache.
    for (const page of [1, 2]) await small.readPage(first, page);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    for (const page of [1, 2]) await small.readPage(second, page);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    expect((await small.readPage(first, 5)).mediaType).toBe("image/jpeg");
  });

  test("more entries than the limit", async () => {
    const path = sevenZip("many.cb7", { "1.png": await png(1), "2.png": await png(2), "3.png": await png(3) });
    expect(failureReason(await analysisError(registry({ limits: { maxEntries: 2 } }), path))).toBe("limit_exceeded");
  });

  test("an entry declared larger than maxEntryBytes is refused before extraction", async () => {
    const path = sevenZip("big.cb7", { "1.png": new Uint8Array(5000) }, ["-ms=off"]);
    const error = await analysisError(registry({ limits: { maxEntryBytes: 4000 } }), path);
    expect([error?.type, failureReason(error)]).toEqual(["parser", "limit_exceeded"]);
  });

  test("a solid block that expands beyond the ratio limit (a 7z bomb) is refused", async () => {
    const path = sevenZip("bomb.cb7", { "1.png": new Uint8Array(4 << 20), "2.png": new Uint8Array(4 << 20) });
    const error = await analysisError(registry({ limits: { maxCompressionRatio: 100 } }), path);
    expect(failureReason(error)).toBe("limit_exceeded");
    expect(error?.message).toContain("Solid block 0");
  });

  test("names that escape the archive (.. or absolute) are refused", async () => {
    const source = mkdtempSync(join(workDir, "escape-"));
    mkdirSync(join(source, "inner"));
    writeFileSync(join(source, "page.png"), await png(1));
    const dots = join(workDir, "dots.cb7");
    expect(Bun.spawnSync(["7zz", "a", "-spf", dots, "../page.png"], { cwd: join(source, "inner") }).exitCode).toBe(0);
    const absolute = join(workDir, "absolute.cb7");
    expect(Bun.spawnSync(["7zz", "a", "-spf", absolute, join(source, "page.png")]).exitCode).toBe(0);
    for (const path of [dots, absolute]) {
      const error = await analysisError(registry(), path);
      expect([error?.type, failureReason(error)]).toEqual(["parser", "corrupt"]);
      expect(error?.message).toContain("escapes the archive");
    }
  });

  test("encrypted entries and an encrypted file list are typed errors", async () => {
    const entries = sevenZip("encrypted.cb7", { "1.png": await png(1) }, ["-psecret"]);
    expect(failureReason(await analysisError(registry(), entries))).toBe("encrypted");
    const list = sevenZip("encrypted-list.cb7", { "1.png": await png(1) }, ["-psecret", "-mhe=on"]);
    const error = await analysisError(registry(), list);
    expect(error?.type).toBe("parser");
    expect(error?.message).toContain("password protected");
    // The 7-Zip instance is replaced after such a failure: the next book still reads.
    expect((await registry().analyze(fixture("unsupported/komga/7zip.7z"))).result?.pages).toHaveLength(1);
    expect(process.exitCode ?? 0).toBe(0);
  });

  test("a truncated archive is a parser error", async () => {
    const bytes = await Bun.file(fixture("unsupported/komga/7zip.7z")).bytes();
    const path = join(workDir, "truncated.cb7");
    writeFileSync(path, bytes.subarray(0, 300));
    expect(await analysisError(registry(), path)).toMatchObject({ type: "parser" });
  });
});

describe("cbt", () => {
  test("a plain tar: pages located in the file (zero-copy), long names and ./ prefixes handled", async () => {
    const first = new Uint8Array(await png(1));
    const second = new Uint8Array(await png(2));
    const longFolder = `${"very-long-folder-name-".repeat(8)}x`;
    const path = tar("plain.cbt", [
      { name: "./pages/", data: new Uint8Array(0), type: "Directory" },
      { name: `./pages/${longFolder}/02.png`, data: second },
      { name: "./pages/01.png", data: first },
      { name: "ComicInfo.xml", data: new TextEncoder().encode("<ComicInfo><Title>Tarred</Title></ComicInfo>") },
    ]);
    const analysis = await registry().analyze(path);
    expect(analysis.errors).toEqual([]);
    expect(analysis.result?.pages.map((page) => page.fileName)).toEqual(["pages/01.png", `pages/${longFolder}/02.png`]);
    expect(analysis.result?.metadata?.values.title).toBe("Tarred");
    const location = await registry().locatePage(path, 1);
    expect(location).toMatchObject({ length: first.length, mediaType: "image/png" });
    const file = await Bun.file(path).bytes();
    expect(file.subarray(location!.offset, location!.offset + location!.length)).toEqual(first);
    expect((await registry().readPage(path, 2)).bytes).toEqual(second);
  });

  test("a book rewritten in place is indexed anew, not read at the offsets kept for its old content", async () => {
    const pages = await Promise.all([1, 2, 3].map(async (seed) => new Uint8Array(await png(seed))));
    const path = tar("rewritten.cbt", [
      { name: "01.png", data: pages[0]! },
      { name: "02.png", data: pages[1]! },
    ]);
    const reader = registry();
    expect((await reader.readPage(path, 2)).bytes).toEqual(pages[1]!);
    // A different first entry moves the second page: kept offsets would now point into the wrong bytes.
    tar("rewritten.cbt", [
      { name: "00-cover.png", data: pages[2]! },
      { name: "01.png", data: pages[0]! },
      { name: "02.png", data: pages[1]! },
    ]);
    expect((await reader.readPage(path, 1)).bytes).toEqual(pages[2]!);
    const location = await reader.locatePage(path, 3);
    const file = await Bun.file(path).bytes();
    expect(file.subarray(location!.offset, location!.offset + location!.length)).toEqual(pages[1]!);
  });

  test("the xz fixture is decompressed through the cache and is not located in the file", async () => {
    const path = fixture("unsupported/comicbox/Captain Science #001-cix.cbt");
    const cacheDir = join(workDir, "cache-xz");
    const cached = registry({ extractionCache: { dir: cacheDir, maxBytes: 1 << 20 } });
    expect(await cached.locatePage(path, 1)).toBeNull();
    const page = await cached.readPage(path, 1);
    expect(page.mediaType).toBe("image/jpeg");
    expect(readdirSync(cacheDir)).toHaveLength(1);
    // The archive stays open between reads; a reader with another cache still decompresses into its own.
    const otherCacheDir = join(workDir, "cache-xz-other");
    await registry({ extractionCache: { dir: otherCacheDir, maxBytes: 1 << 20 } }).readPage(path, 2);
    expect(readdirSync(otherCacheDir)).toHaveLength(1);
  });

  test("an xz stream declaring more expansion than the ratio limit is refused", async () => {
    const inner = tar("zeros.tar", [{ name: "1.png", data: new Uint8Array(4 << 20) }]);
    const compressed = join(workDir, "zeros.cbt");
    expect(Bun.spawnSync(["7zz", "a", "-txz", compressed, inner]).exitCode).toBe(0);
    const error = await analysisError(registry({ limits: { maxCompressionRatio: 50 } }), compressed);
    expect(failureReason(error)).toBe("limit_exceeded");
  });

  test("too many entries, oversized entries, escaping names, truncation and damaged headers", async () => {
    const page = new Uint8Array(await png(1));
    const many = tar("many.cbt", [1, 2, 3].map((n) => ({ name: `${n}.png`, data: page })));
    expect(failureReason(await analysisError(registry({ limits: { maxEntries: 2 } }), many))).toBe("limit_exceeded");

    const big = tar("big.cbt", [{ name: "1.png", data: new Uint8Array(5000) }]);
    expect(failureReason(await analysisError(registry({ limits: { maxEntryBytes: 4000 } }), big))).toBe("limit_exceeded");

    for (const name of ["../1.png", "/etc/1.png", "a/../../1.png"]) {
      const escaping = tar("escaping.cbt", [{ name, data: page }]);
      expect((await analysisError(registry(), escaping))?.message).toContain("escapes the archive");
    }

    const liar = tar("liar.cbt", [{ name: "1.png", data: page, size: 10_000_000 }]);
    expect(failureReason(await analysisError(registry(), liar))).toBe("corrupt");

    const damaged = await Bun.file(tar("damaged.cbt", [{ name: "1.png", data: page }])).bytes();
    damaged[10] = 0x41; // inside the name: the checksum no longer matches
    const damagedPath = join(workDir, "damaged2.cbt");
    writeFileSync(damagedPath, damaged);
    expect(failureReason(await analysisError(registry(), damagedPath))).toBe("corrupt");
  });

  test("links are not pages and are never followed", async () => {
    const page = new Uint8Array(await png(1));
    const path = tar("links.cbt", [
      { name: "1.png", data: page },
      { name: "2.png", data: new Uint8Array(0), type: "SymbolicLink" },
    ]);
    const analysis = await registry().analyze(path);
    expect(analysis.result?.pages.map((entry) => entry.fileName)).toEqual(["1.png"]);
    expect(failureReason(await rejection(registry().readPage(path, 2)))).toBe("not_found");
  });
});
