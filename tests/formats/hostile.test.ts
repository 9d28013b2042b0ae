/** Archives built in the test to break the limits, and images whose header claims a huge size. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import sharp from "sharp";
import { failureReason } from "../../src/formats/errors.ts";
import { FormatRegistry } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";
import { rejection } from "./registry-setup.ts";

const workDir = mkdtempSync(join(tmpdir(), "longbox-hostile-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function writeZip(name: string, entries: Record<string, Uint8Array>, level: 0 | 9 = 9): string {
  const path = join(workDir, name);
  writeFileSync(path, zipSync(Object.fromEntries(Object.entries(entries).map(([entry, data]) => [entry, [data, { level }]]))));
  return path;
}

const tinyPng = await sharp({ create: { width: 4, height: 4, channels: 3, background: "red" } }).png().toBuffer();

function registryWith(limits: ConstructorParameters<typeof FormatRegistry>[1]): FormatRegistry {
  return new FormatRegistry(builtinPlugins, limits);
}


describe("ZIP limits", () => {
  test("too many entries", async () => {
    const path = writeZip("many.cbz", { "1.png": tinyPng, "2.png": tinyPng, "3.png": tinyPng });
    const analysis = await registryWith({ limits: { maxEntries: 2 } }).analyze(path);
    expect(analysis.result).toBeNull();
    expect(failureReason(analysis.errors[0])).toBe("limit_exceeded");
  });

  test("a page larger than maxEntryBytes is refused before inflating", async () => {
    const path = writeZip("big.cbz", { "1.png": new Uint8Array(5000) });
    const analysis = await registryWith({ limits: { maxEntryBytes: 4000 } }).analyze(path);
    expect(analysis.errors[0]?.type).toBe("parser");
    expect(failureReason(analysis.errors[0])).toBe("limit_exceeded");
  });

  test("a compression ratio above the limit (zip bomb) is refused", async () => {
    const path = writeZip("bomb.cbz", { "1.png": new Uint8Array(8 * 1024 * 1024) });
    const analysis = await registryWith({ limits: { maxCompressionRatio: 100 } }).analyze(path);
    expect(analysis.errors[0]?.message).toContain("decompression bomb");
  });

  test("an entry that inflates beyond its declared size is stopped while inflating", async () => {
    const path = writeZip("liar.cbz", { "1.png": new Uint8Array(200_000) });
    const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
    const view = new DataView(bytes.buffer);
    const centralHeader = bytes.findIndex((_, at) => view.getUint32(at, true) === 0x02014b50);
    view.setUint32(centralHeader + 24, 1000, true); // declared uncompressed size: 1000 bytes
    writeFileSync(path, bytes);
    const error = await rejection(registryWith({}).readPage(path, 1));
    expect(failureReason(error)).toBe("limit_exceeded");
    expect(error.message).toContain("beyond its declared size");
  });

  test("a damaged deflate stream is a parser error", async () => {
    // A PNG header (so the page passes the header check before it is inflated whole), then noise.
    const page = crypto.getRandomValues(new Uint8Array(50_000));
    page.set(tinyPng.subarray(0, 33));
    const path = writeZip("damaged.cbz", { "1.png": page });
    const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
    bytes.fill(0xff, 100, 2000);
    writeFileSync(path, bytes);
    const error = await rejection(registryWith({}).readPage(path, 1));
    expect(error.type).toBe("parser");
  });
});

describe("pixel limit", () => {
  /** A real PNG whose IHDR is patched to claim 40000 x 40000 pixels (CRC fixed). */
  async function hugePng(): Promise<Uint8Array> {
    const png = new Uint8Array(tinyPng);
    const view = new DataView(png.buffer, png.byteOffset);
    view.setUint32(16, 40_000);
    view.setUint32(20, 40_000);
    view.setUint32(29, Bun.hash.crc32(png.subarray(12, 29)) >>> 0);
    return png;
  }

  test("a 40000 px page is measured from its header but never decoded", async () => {
    const path = writeZip("huge.cbz", { "1.png": await hugePng() });
    const registry = registryWith({ limits: { maxPixels: 10_000 * 10_000 } });
    const analysis = await registry.analyze(path);
    expect(analysis.result?.pages[0]).toMatchObject({ width: 40_000, height: 40_000 });
    const started = performance.now();
    const error = await rejection(registry.thumbnail(path, { height: 300, format: "webp" }));
    expect(error.type).toBe("thumbnail");
    expect(failureReason(error)).toBe("limit_exceeded");
    expect(performance.now() - started).toBeLessThan(1000);
    const scaled = await rejection(registry.readPage(path, 1, { maxWidth: 800 }));
    expect(failureReason(scaled)).toBe("limit_exceeded");
  });
});
