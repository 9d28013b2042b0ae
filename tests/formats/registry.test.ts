/** Registry behaviour: detection by content, time limit, error conversion, zero pages. */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import sharp from "sharp";
import type { FormatPlugin } from "../../src/formats/contract.ts";
import { failureReason } from "../../src/formats/errors.ts";
import { FormatRegistry } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";
import { fixture } from "../helpers/fixtures.ts";
import { registry } from "./registry-setup.ts";

const workDir = mkdtempSync(join(tmpdir(), "longbox-registry-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** A copy of a fixture under another name: the extension must not decide the format. */
function copyAs(source: string, name: string): string {
  const path = join(workDir, name);
  copyFileSync(fixture(source), path);
  return path;
}

function fakePlugin(id: string, behaviour: Partial<FormatPlugin>): FormatPlugin {
  return {
    id,
    name: id,
    extensions: [id],
    mediaTypes: [`application/x-${id}`],
    detect: (head) => (new TextDecoder().decode(head.subarray(0, id.length)) === id ? 2 : 0),
    analyze: async () => ({ format: id, mediaType: `application/x-${id}`, pages: [], metadata: null, coverPage: null }),
    readPage: async () => ({ bytes: new Uint8Array(), mediaType: "image/png" }),
    ...behaviour,
  };
}

function fileStartingWith(name: string, text: string): string {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

describe("detection by content", () => {
  test("a .cbr that is really a ZIP is read as cbz", async () => {
    expect((await registry.detect(copyAs("cbz/komga/zip.zip", "really-a-zip.cbr"))).id).toBe("cbz");
  });

  test("a RAR named .cbz is read as cbr", async () => {
    expect((await registry.detect(copyAs("cbr/komga/rar5.rar", "really-a-rar.cbz"))).id).toBe("cbr");
  });

  test("an EPUB named .cbz is still an EPUB (mimetype entry)", async () => {
    expect((await registry.detect(copyAs("epub/komga/epub3.epub", "really-an-epub.cbz"))).id).toBe("epub");
  });

  test("a plain ZIP: the extension breaks the cbz/epub tie", async () => {
    expect((await registry.detect(copyAs("cbz/komga/zip.zip", "x.epub"))).id).toBe("epub");
    expect((await registry.detect(copyAs("cbz/komga/zip.zip", "x.cbz"))).id).toBe("cbz");
    expect((await registry.detect(copyAs("cbz/komga/zip.zip", "x.bin"))).id).toBe("cbz");
    expect((await registry.detect(copyAs("unsupported/komga/7zip.7z", "7z.cbz"))).id).toBe("cb7");
  });

  test("a ZIP with leading junk is still a ZIP", async () => {
    expect((await registry.detect(fixture("cbz/zip2/zip64_demo.zip"))).id).toBe("cbz");
  });

  test("empty, random and unknown content is format_detection, whatever the extension", async () => {
    for (const path of [fileStartingWith("empty.cbz", ""), fileStartingWith("text.cbr", "just some text"), fileStartingWith("gzip.cbt", "\x1f\x8b\x08\x00")]) {
      const analysis = await registry.analyze(path);
      expect(analysis.format).toBeNull();
      expect(analysis.errors.map((error) => error.type)).toEqual(["format_detection"]);
    }
  });

  test("a missing file is a readable error, not a crash", async () => {
    const analysis = await registry.analyze(join(workDir, "does-not-exist.cbz"));
    expect(analysis.errors).toHaveLength(1);
    expect(analysis.result).toBeNull();
  });

  test("extensions() lists what the folder walker should pick up", () => {
    expect(registry.extensions().sort()).toEqual(["7z", "cb7", "cbr", "cbt", "cbz", "epub", "pdf", "rar", "tar", "zip"]);
  });
});

describe("plugin failures become typed errors", () => {
  test("two plugins may not claim the same id", () => {
    expect(() => new FormatRegistry([...builtinPlugins, fakePlugin("cbz", {})])).toThrow('claim the id "cbz"');
  });

  test("a plugin that never finishes hits the time limit", async () => {
    const hanging = fakePlugin("hang", { analyze: () => new Promise(() => undefined) });
    const started = performance.now();
    const analysis = await new FormatRegistry([hanging], { timeoutMs: 100 }).analyze(fileStartingWith("x.hang", "hang"));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(analysis.errors[0]?.type).toBe("other");
    expect(failureReason(analysis.errors[0])).toBe("timeout");
    expect(analysis.errors[0]?.message).toContain("0.1 s");
  });

  test("a cancelled call stops with an aborted error, and the plugin sees the signal", async () => {
    let sawAbort = false;
    const slow = fakePlugin("slow", {
      analyze: (_, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve({ format: "slow", mediaType: "x", pages: [], metadata: null, coverPage: null });
          });
        }),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const analysis = await new FormatRegistry([slow]).analyze(fileStartingWith("x.slow", "slow"), { signal: controller.signal });
    expect(failureReason(analysis.errors[0])).toBe("aborted");
    expect(sawAbort).toBe(true);
  });

  test("an unexpected exception is `other`; a RangeError from reading bytes is `parser`", async () => {
    const crashing = fakePlugin("crash", { analyze: async () => { throw new Error("boom"); } });
    const ranging = fakePlugin("range", { analyze: async () => { throw new RangeError("Offset is outside the bounds of the DataView"); } });
    const both = new FormatRegistry([crashing, ranging]);
    const crash = await both.analyze(fileStartingWith("x.crash", "crash"));
    expect(crash.errors[0]).toMatchObject({ type: "other" });
    expect(crash.errors[0]?.message).toContain("boom");
    const range = await both.analyze(fileStartingWith("x.range", "range"));
    expect(range.errors[0]).toMatchObject({ type: "parser" });
  });

  test("a detect that throws does not claim the file", async () => {
    const broken = fakePlugin("broken", { detect: () => { throw new Error("bad detect"); } });
    const analysis = await new FormatRegistry([broken]).analyze(fileStartingWith("x.broken", "broken"));
    expect(analysis.errors[0]?.type).toBe("format_detection");
  });
});

describe("zero pages keep their metadata", () => {
  test("ComicInfo.zip: the metadata and the zero_pages error are both available", async () => {
    const analysis = await registry.analyze(fixture("cbz/kavita/ComicInfo.zip"));
    expect(analysis.result?.metadata?.values.series).toBe("BTOOOM!");
    expect(analysis.errors.map((error) => error.type)).toEqual(["zero_pages"]);
  });

  test("a damaged ComicInfo.xml is a metadata problem next to readable pages", async () => {
    const path = join(workDir, "bad-comicinfo.cbz");
    writeFileSync(
      path,
      zipSync({
        "ComicInfo.xml": new TextEncoder().encode('<!DOCTYPE x [<!ENTITY a "b">]><ComicInfo><Series>&a;</Series></ComicInfo>'),
        "1.png": (await registry.readPage(fixture("cbz/komga/zip.zip"), 1)).bytes,
      }),
    );
    const analysis = await registry.analyze(path);
    expect(analysis.result?.pages).toHaveLength(1);
    expect(analysis.result?.metadata).toBeNull();
    expect(analysis.errors.map((error) => error.type)).toEqual(["metadata"]);
  });
});

describe("the cover page", () => {
  test("ComicInfo's FrontCover page is the cover, whatever its position", async () => {
    const pages = await Promise.all(
      [1, 2, 3].map(async (seed) =>
        new Uint8Array(await sharp({ create: { width: 20 + seed, height: 30, channels: 3, background: "#123" } }).png().toBuffer()),
      ),
    );
    const comicInfo = `<?xml version="1.0"?><ComicInfo><Pages><Page Image="0" Type="Story"/><Page Image="1" Type="FrontCover"/><Page Image="2"/></Pages></ComicInfo>`;
    const path = join(workDir, "cover-second.cbz");
    writeFileSync(path, zipSync({ "1.png": pages[0]!, "2.png": pages[1]!, "3.png": pages[2]!, "ComicInfo.xml": new TextEncoder().encode(comicInfo) }));
    const analysis = await registry.analyze(path);
    expect(analysis.result?.coverPage).toBe(2);
    const withoutMarker = join(workDir, "cover-default.cbz");
    writeFileSync(withoutMarker, zipSync({ "1.png": pages[0]!, "2.png": pages[1]! }));
    expect((await registry.analyze(withoutMarker)).result?.coverPage).toBe(1);
  });
});

describe("page sizes of a CBZ", () => {
  const png = async (width: number, height: number) =>
    new Uint8Array(await sharp({ create: { width, height, channels: 3, background: "#456" } }).png().toBuffer());

  test("every page is measured, whether its neighbours lie close, far or it is compressed", async () => {
    const filler = new Uint8Array(300 * 1024).map((_, index) => (index * 7919) % 251); // no image: not a page
    const path = join(workDir, "sizes.cbz");
    writeFileSync(
      path,
      zipSync(
        {
          "01.png": [await png(11, 21), { level: 0 }],
          "02.png": [await png(12, 22), { level: 0 }],
          "03.bin": [filler, { level: 0 }],
          "04.png": [await png(14, 24), { level: 0 }],
          "05.png": [await png(15, 25), { level: 9 }],
          "06.png": [await png(16, 26), { level: 0 }],
        },
        { level: 0 },
      ),
    );
    const analysis = await registry.analyze(path);
    expect(analysis.errors).toEqual([]);
    expect(analysis.result?.pages.map((page) => [page.fileName, page.width, page.height])).toEqual([
      ["01.png", 11, 21],
      ["02.png", 12, 22],
      ["04.png", 14, 24],
      ["05.png", 15, 25],
      ["06.png", 16, 26],
    ]);
  });

  test("a page whose local header is damaged fails the analysis, naming that page", async () => {
    const bytes = zipSync({ "1.png": [await png(11, 21), { level: 0 }], "2.png": [await png(12, 22), { level: 0 }] }, { level: 0 });
    const header = Buffer.from(bytes).indexOf("2.png") - 30; // the local header comes before the central directory's
    bytes.set([0, 0, 0, 0], header);
    const path = join(workDir, "damaged-header.cbz");
    writeFileSync(path, bytes);
    const analysis = await registry.analyze(path);
    expect(analysis.result).toBeNull();
    expect(analysis.errors.map((error) => error.message)).toEqual([expect.stringContaining('the local header of entry "2.png" is missing')]);
  });
});
