/** Reading pages, thumbnails and resources of real fixtures; page order; ComicInfo choice; entry names. */
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { failureReason, isNotFound } from "../../src/formats/errors.ts";
import { DEFAULT_LIMITS } from "../../src/formats/limits.ts";
import { ZipArchive } from "../../src/formats/zip.ts";
import { fixture } from "../helpers/fixtures.ts";
import { registry, rejection } from "./registry-setup.ts";

const JPEG = [0xff, 0xd8, 0xff];
const PNG = [0x89, 0x50, 0x4e, 0x47];


async function expectDecodableImage(bytes: Uint8Array, magic: number[], size: [number, number]): Promise<void> {
  expect([...bytes.subarray(0, magic.length)]).toEqual(magic);
  const { width, height } = await sharp(bytes).metadata();
  expect([width, height]).toEqual(size);
  expect(await sharp(bytes).raw().toBuffer()).toBeTruthy(); // a full decode succeeds
}

describe("readPage returns real, decodable image bytes", () => {
  const CASES: ReadonlyArray<readonly [string, number, number[]]> = [
    ["cbz/stump/science_comics_001.cbz", 36, JPEG],
    ["cbz/comicbox/Captain Science #001.cbz", 1, JPEG],
    ["cbz/komga/zip.zip", 1, PNG],
    ["cbr/komga/rar5-solid.rar", 3, PNG],
    ["cbr/komga/rar4-solid.rar", 2, PNG],
    ["cbr/comicbox/Captain Science #001-cix-cbi.cbr", 5, JPEG],
    ["epub/idpf-built/haruko-jpeg.epub", 2, JPEG],
  ];
  for (const [file, pageNumber, magic] of CASES) {
    test(`${file} page ${pageNumber}, of the size analysis read from its header`, async () => {
      const analysis = await registry.analyze(fixture(file));
      const info = analysis.result?.pages[pageNumber - 1];
      const page = await registry.readPage(fixture(file), pageNumber);
      await expectDecodableImage(page.bytes, magic, [info?.width ?? -1, info?.height ?? -1]);
      expect(page.mediaType).toBe(magic === JPEG ? "image/jpeg" : "image/png");
      expect(page.bytes.length).toBe(info?.size ?? -1);
    });
  }

  test("maxWidth scales the page down", async () => {
    const page = await registry.readPage(fixture("cbz/stump/science_comics_001.cbz"), 1, { maxWidth: 200 });
    const { width } = await sharp(page.bytes).metadata();
    expect(width).toBe(200);
  });

  test("a page outside 1..pageCount is a not_found error", async () => {
    for (const pageNumber of [0, 6, 1.5]) {
      const error = await rejection(registry.readPage(fixture("cbz/comicbox/Captain Science #001.cbz"), pageNumber));
      expect(error.type).toBe("page_extraction");
      expect(isNotFound(error)).toBe(true);
    }
  });

  test("a known format id skips detection", async () => {
    const page = await registry.readPage(fixture("cbz/komga/zip.zip"), 1, { formatId: "cbz" });
    expect([...page.bytes.subarray(0, 4)]).toEqual(PNG);
  });
});

describe("thumbnails", () => {
  test("cover page of a comic, as WebP and JPEG, at the asked height", async () => {
    const webp = await registry.thumbnail(fixture("cbz/stump/science_comics_001.cbz"), { height: 300, format: "webp" });
    expect(await sharp(webp).metadata()).toMatchObject({ format: "webp", height: 300 });
    const jpeg = await registry.thumbnail(fixture("cbr/comicbox/Captain Science #001-cix-cbi.cbr"), { height: 80, format: "jpeg" });
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: "jpeg", height: 80 });
  });

  test("thumbnails of a full-size page: lossy WebP, baseline JPEG (not mozjpeg's progressive), at the asked height", async () => {
    const root = mkdtempSync(join(tmpdir(), "longbox-thumbnail-"));
    try {
      // A comic-sized page (1988 x 3056): JPEG pages this size are shrunk while they decode.
      const page = await sharp({ create: { width: 1988, height: 3056, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 30 } } })
        .jpeg({ quality: 85 })
        .toBuffer();
      const book = join(root, "Big #001.cbz");
      writeFileSync(book, zipSync({ "001.jpg": page }, { level: 0 }));
      const webp = await registry.thumbnail(book, { height: 400, format: "webp" });
      expect(await sharp(webp).metadata()).toMatchObject({ format: "webp", width: 260, height: 400 });
      // RIFF....WEBP then the first chunk: "VP8 " is lossy, "VP8L" would be lossless (several times larger).
      expect(new TextDecoder().decode(webp.subarray(12, 16))).toBe("VP8 ");
      const jpeg = await registry.thumbnail(book, { height: 400, format: "jpeg" });
      expect(await sharp(jpeg).metadata()).toMatchObject({ format: "jpeg", width: 260, height: 400, isProgressive: false });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a reflowable EPUB's thumbnail comes from its cover image", async () => {
    const thumbnail = await registry.thumbnail(fixture("epub/idpf-built/wasteland.epub"), { height: 120, format: "jpeg" });
    expect(await sharp(thumbnail).metadata()).toMatchObject({ format: "jpeg", height: 120 });
  });

  test("an EPUB with no image at all has a typed thumbnail error", async () => {
    const error = await rejection(registry.thumbnail(fixture("epub/idpf-built/hefty-water.epub"), { height: 120, format: "jpeg" }));
    expect(error.type).toBe("thumbnail");
  });

  test("fake images give a typed error, not a crash: the cover is refused as no image before it is decoded", async () => {
    const error = await rejection(registry.thumbnail(fixture("cbr/comictagger/fake_cbr.cbr"), { height: 100, format: "webp" }));
    expect(error.type).toBe("page_extraction");
    expect(failureReason(error)).toBe("corrupt");
  });
});

describe("page order and ComicInfo choice", () => {
  test("fake_cbr.cbr pages are in natural order, hidden and non-image entries skipped", async () => {
    const analysis = await registry.analyze(fixture("cbr/comictagger/fake_cbr.cbr"));
    expect(analysis.result?.pages.map((page) => page.fileName)).toEqual([
      "!cover.jpg",
      "00.jpg",
      "page0.jpg",
      "Page1.jpeg",
      "Page2.png",
      "Page3.gif",
      "page4.webp",
      "page10.jpg",
    ]);
  });

  test("sorting.zip puts page 2 before page 10", async () => {
    const analysis = await registry.analyze(fixture("cbz/kavita/sorting.zip"));
    expect(analysis.result?.pages.map((page) => page.fileName)).toEqual(["sorting/page 2.jpg", "sorting/page 10.jpg"]);
  });

  test("macOS resource forks are not pages", async () => {
    const analysis = await registry.analyze(fixture("cbz/stump/nested-macos-compressed.cbz"));
    expect(analysis.result?.pages.map((page) => page.fileName)).toEqual([
      "nested/BookFolder/1.jpeg",
      "nested/BookFolder/2.jpeg",
      "nested/BookFolder/3.jpeg",
    ]);
  });

  for (const file of ["cbz/kavita/ComicInfo_duplicateInfos.zip", "cbz/kavita/ComicInfo_duplicateInfos_reversed.zip", "cbr/kavita/ComicInfo_duplicateInfos.rar"]) {
    test(`the root ComicInfo.xml wins in ${file}`, async () => {
      const analysis = await registry.analyze(fixture(file));
      expect(analysis.result?.metadata?.values.series).toBe("BTOOOM!");
    });
  }

  test("the lower-case root comicinfo.xml wins over the nested one (PageCount 0 vs 5)", async () => {
    const analysis = await registry.analyze(fixture("cbz/comicbox/Captain Science #001.cbz"));
    expect(analysis.result?.metadata?.values.declaredPageCount).toBeUndefined();
    expect(analysis.result?.metadata?.values.volume).toBe(1950);
  });
});

describe("entry names", () => {
  test("names without the UTF-8 flag that are not UTF-8 are read as CP437", async () => {
    const zip = await ZipArchive.open(fixture("cbz/zip2/non_utf8.zip"), DEFAULT_LIMITS);
    expect(zip.entries.map((entry) => entry.name)).toEqual(["╓╨╬─", "ô·ò╢"]);
    for (const entry of zip.entries) expect((await zip.read(entry)).length).toBe(entry.uncompressedSize);
  });

  test("UTF-8 names without the flag are read as UTF-8 (the EPUB's hrefs resolve)", async () => {
    const zip = await ZipArchive.open(fixture("epub/idpf-built/kusamakura-japanese-vertical-writing.noefs.epub"), DEFAULT_LIMITS);
    expect(zip.entry("OPS/images/夏目漱石.jpg")).toBeDefined();
    const page = await registry.readResource(fixture("epub/idpf-built/kusamakura-japanese-vertical-writing.noefs.epub"), "OPS/xhtml/一.xhtml");
    expect(page.mediaType).toBe("application/xhtml+xml");
    expect(new TextDecoder().decode(page.bytes)).toContain("<html");
  });
});

describe("readResource stays inside the book", () => {
  const BOOK = fixture("epub/idpf-built/wasteland.epub");

  test("a manifest resource comes with its manifest media type", async () => {
    const css = await registry.readResource(BOOK, "EPUB/wasteland.css");
    expect(css.mediaType).toBe("text/css");
    const normalised = await registry.readResource(BOOK, "EPUB/./sub/../wasteland.css");
    expect(normalised.bytes).toEqual(css.bytes);
  });

  for (const escape of [
    // Climbs out of the book and back into it: a reader that dropped the excess ".." would
    // land on a real entry, so these only pass when the escape itself is refused.
    "EPUB/x/../../../EPUB/wasteland.css",
    "../EPUB/wasteland.css",
    "../wasteland.epub",
    "../../../../etc/passwd",
    "EPUB/../../META-INF/container.xml",
    "/etc/passwd",
    "EPUB\\..\\..\\x",
    "%2e%2e/%2e%2e/etc/passwd",
    "EPUB/missing.xhtml",
    "EPUB/",
    "",
    "EPUB/wasteland.css\0.png",
  ]) {
    test(`${JSON.stringify(escape)} is not_found`, async () => {
      const error = await rejection(registry.readResource(BOOK, escape));
      expect(failureReason(error)).toBe("not_found");
    });
  }

  test("comic archives have no resources", async () => {
    expect(isNotFound(await rejection(registry.readResource(fixture("cbz/komga/zip.zip"), "komga.png")))).toBe(true);
  });
});
