/**
 * The PDF plugin against every PDF of the shared fixture corpus (see fixtures/SOURCES.md),
 * plus page reading: rendering, maxWidth, the embedded-JPEG fast path and errors.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { BookAnalysisError, type BookErrorType, type BookMetadata } from "../../src/formats/contract.ts";
import { EMBEDDED_CMAPS } from "../../plugins/pdf/embedded-cmaps.ts";
import { pdfPlugin } from "../../plugins/pdf/index.ts";
import { renderPdfPage } from "../../plugins/pdf/page-render.ts";
import { PROJECT_ROOT } from "../helpers/cli.ts";
import { filesUnder } from "../helpers/files.ts";
import { FIXTURES } from "../helpers/fixtures.ts";
import { anyRejection, pluginContext } from "./registry-setup.ts";
import { isNotFound } from "../../src/formats/errors.ts";

const pdfFixtures = join(FIXTURES, "pdf");
const fixture = (name: string) => join(pdfFixtures, name);

/** Generous for 2 cores: the slowest fixture (Brotli, 25 pages) analyses in about 150 ms. */
const ANALYSIS_TIME_LIMIT_MS = 5000;

type Expectation =
  | { pages: number; firstPage: [number, number]; metadata?: BookMetadata | null }
  | { error: BookErrorType; passwordProtected?: true };

const PASSWORD_PROTECTED = { error: "parser", passwordProtected: true } as const;
const BROKEN = { error: "parser" } as const;
const LETTER: [number, number] = [612, 792];
const A4: [number, number] = [595, 842];

/** Every PDF fixture. `metadata` is checked exactly when given (null = the file carries none). */
const EXPECTED: Record<string, Expectation> = {
  "comicbox/test_cix.pdf": {
    pages: 4,
    firstPage: A4,
    // CreationDate D:19700101000000 is comicbox's "unknown" placeholder, not a date.
    metadata: {
      title: "the tangle of their lives",
      authors: [{ name: "Jon Osterman", role: "writer" }],
      summary: "Science Fiction",
      tags: ["d", "e", "f"],
    },
  },
  "comicbox/test_pdf_legacy_keywords.pdf": {
    pages: 4,
    firstPage: A4,
    // Keywords hold a ComicInfo document: not tags.
    metadata: { title: "the tangle of their lives", authors: [{ name: "Jon Osterman", role: "writer" }], summary: "Science Fiction" },
  },
  "kavita/test_ſ.pdf": {
    pages: 1,
    firstPage: A4,
    metadata: {
      title: "Variations Chromatiques de concert",
      authors: [{ name: "Georges Bizet (1838-1875)", role: "writer" }],
      year: 2013,
      month: 2,
      day: 28,
    },
  },
  "komga/komga.pdf": {
    pages: 1,
    firstPage: [512, 512],
    // The title ends with a NUL character in the file.
    metadata: { title: "komga", authors: [{ name: "https://imagemagick.org", role: "writer" }], year: 2022, month: 1, day: 5 },
  },
  "pdfjs/Brotli-Prototype-FileA.pdf": { pages: 25, firstPage: [1224, 792], metadata: { title: "A5.0", year: 2015, month: 2, day: 19 } },
  "pdfjs/REDHAT-1531897-0.pdf": BROKEN,
  "pdfjs/alphatrans.pdf": {
    pages: 1,
    firstPage: A4,
    metadata: {
      title: "Alpha Transparency Test",
      authors: [{ name: "Brendan Dahl", role: "writer" }],
      summary: "Alpha Transparency Test",
      year: 2011,
      month: 10,
      day: 28,
    },
  },
  "pdfjs/bug1020226.pdf": BROKEN,
  "pdfjs/bug1997343.pdf": {
    pages: 2,
    firstPage: [595, 782],
    // No info dictionary title: everything comes from XMP (x-default of dc:title).
    metadata: { title: "A Two Column Example", authors: [{ name: "The Team", role: "writer" }], year: 2025, month: 10, day: 30 },
  },
  "pdfjs/bug900822.pdf": {
    pages: 1,
    firstPage: A4,
    metadata: { title: "PDF Browser test", authors: [{ name: "ME", role: "writer" }], summary: "Browser Test", year: 2013, month: 8, day: 1 },
  },
  // The info dictionary wins over XMP (dc:title "devicen.pdf").
  "pdfjs/devicen.pdf": { pages: 1, firstPage: LETTER, metadata: { title: "devicen1.ps", year: 2004, month: 7, day: 16 } },
  "pdfjs/empty#hash.pdf": { pages: 1, firstPage: LETTER, metadata: { year: 2023, month: 6, day: 16 } },
  "pdfjs/empty_protected.pdf": { pages: 1, firstPage: LETTER, metadata: { year: 2023, month: 8, day: 10 } },
  "pdfjs/helloworld-bad.pdf": { pages: 1, firstPage: [200, 200], metadata: null },
  "pdfjs/issue1002.pdf": {
    pages: 1,
    firstPage: [442, 663],
    metadata: {
      title: "Learning Freedom and the Web - October 17, 2011",
      authors: [{ name: "Anya Kamenetz", role: "writer" }],
      year: 2012,
      month: 3,
      day: 9,
    },
  },
  "pdfjs/issue11878_reduced.pdf": { pages: 10, firstPage: [3, 3], metadata: null },
  "pdfjs/issue12963.pdf": { pages: 8, firstPage: [595, 841], metadata: { year: 2021, month: 2, day: 6 } },
  "pdfjs/issue14497.pdf": { pages: 1, firstPage: [3370, 2384], metadata: { year: 2009, month: 1, day: 29 } },
  // pdf.js finds one page where poppler finds none (/Count null).
  "pdfjs/issue15590.pdf": { pages: 1, firstPage: LETTER, metadata: null },
  // /UserUnit 72 is not applied to the size (see analyze.ts).
  "pdfjs/issue19176.pdf": { pages: 1, firstPage: LETTER, metadata: null },
  "pdfjs/issue2884_reduced.pdf": {
    pages: 1,
    firstPage: [169, 19],
    metadata: {
      title: "あいち電子調達共同システム",
      authors: [{ name: "nakafuru", role: "writer" }],
      summary: "操作マニュアル",
      year: 2017,
      month: 10,
      day: 23,
    },
  },
  "pdfjs/issue3371.pdf": PASSWORD_PROTECTED,
  "pdfjs/issue6010_1.pdf": PASSWORD_PROTECTED,
  // Empty strings everywhere, and no CreationDate: no metadata.
  "pdfjs/issue7229.pdf": { pages: 2, firstPage: [596, 842], metadata: null },
  "pdfjs/issue9418.pdf": { pages: 1, firstPage: [3024, 2304], metadata: { year: 2018, month: 1, day: 30 } },
  "pdfjs/labelled_pages.pdf": { pages: 11, firstPage: LETTER, metadata: { year: 2025, month: 10, day: 30 } },
  "pdfjs/large_jpeg_downscale.pdf": { pages: 1, firstPage: [500, 125], metadata: null },
  "pdfjs/pdkids.pdf": { pages: 55, firstPage: LETTER, metadata: { authors: [{ name: "Matt Pierard", role: "writer" }], year: 2010, month: 9, day: 5 } },
  "pdfjs/poppler-67295-0.pdf": { pages: 1, firstPage: LETTER, metadata: null },
  "pdfjs/poppler-85140-0.pdf": { pages: 1, firstPage: LETTER, metadata: null },
  "pdfjs/pr6531_1.pdf": PASSWORD_PROTECTED,
  "pdfjs/print_protection.pdf": PASSWORD_PROTECTED,
  "pdfjs/saslprep-r6.pdf": PASSWORD_PROTECTED,
  "pdfjs/scan-bad.pdf": { pages: 1, firstPage: LETTER, metadata: { year: 2011, month: 12, day: 2 } },
  "pdfjs/tracemonkey.pdf": { pages: 14, firstPage: LETTER, metadata: { year: 2009, month: 4, day: 1 } },
  "pdfjs/xref_command_missing.pdf": { pages: 1, firstPage: [200, 50], metadata: null },
  "stump/tall.pdf": { pages: 1, firstPage: [567, 1417], metadata: null },
};

describe("PDF fixtures", () => {
  test("the table lists every file of the PDF fixture folder", () => {
    expect(filesUnder(pdfFixtures)).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(
      name,
      async () => {
        const started = performance.now();
        const outcome = pdfPlugin.analyze(fixture(name), pluginContext());
        if ("error" in expected) {
          const error = await anyRejection(outcome);
          expect(error).toBeInstanceOf(BookAnalysisError);
          const { type, details } = error as BookAnalysisError;
          expect(type).toBe(expected.error);
          expect(details?.passwordProtected).toBe(expected.passwordProtected);
        } else {
          const result = await outcome;
          expect(result.format).toBe("pdf");
          expect(result.mediaType).toBe("application/pdf");
          expect(result.pages.length).toBe(expected.pages);
          expect(result.coverPage).toBe(1);
          expect([result.pages[0]?.width, result.pages[0]?.height]).toEqual(expected.firstPage);
          expect(result.pages[0]).toMatchObject({ fileName: "page-0001", mediaType: "image/jpeg" });
          if (expected.metadata !== undefined) {
            expect(result.metadata).toEqual(expected.metadata && { source: "pdf", values: expected.metadata });
          }
        }
        expect(performance.now() - started).toBeLessThan(ANALYSIS_TIME_LIMIT_MS);
      },
      ANALYSIS_TIME_LIMIT_MS * 2,
    );
  }
});

describe("detect", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  test("a %PDF- header in the first KiB is a PDF", () => {
    expect(pdfPlugin.detect(bytes("%PDF-1.7\n"), "a.pdf")).toBe(2);
    expect(pdfPlugin.detect(bytes(`${" ".repeat(1000)}%PDF-1.4`), "a.bin")).toBe(2);
  });
  test("anything else is not", () => {
    expect(pdfPlugin.detect(bytes(`${" ".repeat(1100)}%PDF-1.4`), "a.pdf")).toBe(0);
    expect(pdfPlugin.detect(bytes("PK\u0003\u0004"), "a.pdf")).toBe(0);
    expect(pdfPlugin.detect(new Uint8Array(), "a.pdf")).toBe(0);
  });
});

describe("readPage", () => {
  test("renders a vector page to a JPEG 1200 px wide by default", async () => {
    const page = await pdfPlugin.readPage(fixture("pdfjs/tracemonkey.pdf"), 1, pluginContext());
    expect(page.mediaType).toBe("image/jpeg");
    const { format, width, height } = await sharp(page.bytes).metadata();
    expect({ format, width, height }).toEqual({ format: "jpeg", width: 1200, height: 1552 });
  });

  test("honours maxWidth", async () => {
    const page = await pdfPlugin.readPage(fixture("pdfjs/alphatrans.pdf"), 1, pluginContext(), { maxWidth: 300 });
    const { width, height } = await sharp(page.bytes).metadata();
    expect({ width, height }).toEqual({ width: 300, height: 424 });
  });

  test("renders JBIG2 scans and CJK text that needs an embedded CMap", async () => {
    for (const name of ["pdfjs/issue12963.pdf", "pdfjs/issue2884_reduced.pdf"]) {
      const page = await pdfPlugin.readPage(fixture(name), 1, pluginContext(), { maxWidth: 400 });
      const stats = await sharp(page.bytes).stats();
      // Not a blank page: something dark was drawn.
      expect(stats.channels[0]!.min).toBeLessThan(64);
    }
  });

  test("draws a scan's page from its image scaled by sharp as pdf.js's canvas draws it", async () => {
    // issue12963: one 2480x3506 JBIG2 image per page under invisible OCR text and form fields.
    const ctx = pluginContext();
    for (const [pageNumber, maxWidth] of [[1, 800], [2, 1600]] as const) {
      const page = await pdfPlugin.readPage(fixture("pdfjs/issue12963.pdf"), pageNumber, ctx, { maxWidth });
      const onCanvas = await renderPdfPage(fixture("pdfjs/issue12963.pdf"), pageNumber, ctx.limits, maxWidth, { prescaleImages: false });
      // Not pdf.js's own drawing (that would be the same bytes), yet the same picture.
      expect(Buffer.from(page.bytes).equals(Buffer.from(onCanvas.bytes))).toBe(false);
      const difference = await pixelDifference(page.bytes, onCanvas.bytes);
      expect(difference.size).toEqual({ width: maxWidth, height: Math.floor((841.44 * maxWidth) / 595.2) });
      expect(difference.mean).toBeLessThan(4);
      expect(difference.farOff).toBeLessThan(0.005);
    }
  });

  test("leaves pages without a large opaque image to pdf.js's canvas", async () => {
    // A vector page, a page of small images with transparency, one 40000 px image enlarged.
    const pages = [["pdfjs/tracemonkey.pdf", 600], ["pdfjs/alphatrans.pdf", 600], ["pdfjs/large_jpeg_downscale.pdf", 4000]] as const;
    const ctx = pluginContext();
    for (const [name, maxWidth] of pages) {
      const page = await renderPdfPage(fixture(name), 1, ctx.limits, maxWidth);
      const onCanvas = await renderPdfPage(fixture(name), 1, ctx.limits, maxWidth, { prescaleImages: false });
      expect(Buffer.from(page.bytes).equals(Buffer.from(onCanvas.bytes))).toBe(true);
    }
  });

  test("keeps degenerate pages within the pixel limit", async () => {
    const ctx = pluginContext();
    ctx.limits.maxPixels = 1_000_000;
    const page = await pdfPlugin.readPage(fixture("stump/tall.pdf"), 1, ctx);
    const { width = 0, height = 0 } = await sharp(page.bytes).metadata();
    expect(width * height).toBeLessThanOrEqual(1_000_000);
    expect(width / height).toBeCloseTo(567 / 1417, 2);
  });

  test("hands out the embedded JPEG of an image-only page as stored", async () => {
    const path = fixture("pdfjs/issue7229.pdf");
    const file = Buffer.from(await Bun.file(path).bytes());
    for (const pageNumber of [1, 2]) {
      const page = await pdfPlugin.readPage(path, pageNumber, pluginContext());
      expect(page.mediaType).toBe("image/jpeg");
      expect(file.indexOf(page.bytes)).toBeGreaterThan(0);
      const { width, height } = await sharp(page.bytes).metadata();
      expect({ width, height }).toEqual({ width: 1654, height: 2338 });
    }
  });

  test("resizes the embedded JPEG when maxWidth asks for it", async () => {
    const page = await pdfPlugin.readPage(fixture("pdfjs/issue7229.pdf"), 2, pluginContext(), { maxWidth: 800 });
    const { format, width } = await sharp(page.bytes).metadata();
    expect({ format, width }).toEqual({ format: "jpeg", width: 800 });
  });

  test("finds the embedded JPEG in a minimal hand-written PDF", async () => {
    const jpeg = await sharp({ create: { width: 60, height: 80, channels: 3, background: "#c04020" } }).jpeg().toBuffer();
    const path = join(tmpdir(), `longbox-image-only-${process.pid}.pdf`);
    await Bun.write(path, imageOnlyPdf(jpeg, 60, 80, 120, 160));
    try {
      const page = await pdfPlugin.readPage(path, 1, pluginContext());
      expect(Buffer.from(page.bytes).equals(jpeg)).toBe(true);
      expect((await pdfPlugin.analyze(path, pluginContext())).pages.length).toBe(1);
    } finally {
      await Bun.file(path).delete();
    }
  });

  test("renders, rather than hands out, a JPEG stretched out of shape", async () => {
    const page = await pdfPlugin.readPage(fixture("pdfjs/large_jpeg_downscale.pdf"), 1, pluginContext(), { maxWidth: 500 });
    const { width, height } = await sharp(page.bytes).metadata();
    expect({ width, height }).toEqual({ width: 500, height: 125 });
  });

  test("a page that does not exist is a page_extraction error", async () => {
    const error = await anyRejection(pdfPlugin.readPage(fixture("pdfjs/alphatrans.pdf"), 2, pluginContext()));
    expect((error as BookAnalysisError).type).toBe("page_extraction");
    expect(isNotFound(error)).toBe(true);
  });

  test("an encrypted PDF is reported as password-protected", async () => {
    const error = await anyRejection(pdfPlugin.readPage(fixture("pdfjs/issue6010_1.pdf"), 1, pluginContext()));
    expect(error).toMatchObject({ type: "parser", details: { passwordProtected: true, reason: "encrypted" } });
  });

  test("an aborted signal stops the work with its reason", async () => {
    const controller = new AbortController();
    controller.abort(new Error("scan cancelled"));
    const error = await anyRejection(pdfPlugin.readPage(fixture("pdfjs/tracemonkey.pdf"), 1, pluginContext(controller.signal)));
    expect((error as Error).message).toBe("scan cancelled");
  });

  test("an abort while a page renders rejects with the abort reason", async () => {
    const controller = new AbortController();
    const reading = pdfPlugin.readPage(fixture("pdfjs/issue12963.pdf"), 1, pluginContext(controller.signal));
    setTimeout(() => controller.abort(new Error("time limit")), 20);
    expect(((await anyRejection(reading)) as Error).message).toBe("time limit");
  });
});

test("every CMap of pdfjs-dist is embedded", () => {
  const cmaps = readdirSync(join(PROJECT_ROOT, "node_modules/pdfjs-dist/cmaps")).filter((name) => name.endsWith(".bcmap"));
  expect(Object.keys(EMBEDDED_CMAPS).sort()).toEqual(cmaps.sort());
});

/**
 * A one-page PDF whose page (`pageWidth` x `pageHeight` pt) is one JPEG image, with a correct
 * xref table: what scanners and image-to-PDF tools write.
 */
function imageOnlyPdf(jpeg: Uint8Array, width: number, height: number, pageWidth: number, pageHeight: number): Uint8Array {
  const content = `q ${pageWidth} 0 0 ${pageHeight} 0 0 cm /Im0 Do Q`;
  const objects: (string | Uint8Array)[][] = [
    ["<< /Type /Catalog /Pages 2 0 R >>"],
    ["<< /Type /Pages /Kids [3 0 R] /Count 1 >>"],
    [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pageWidth} ${pageHeight}] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>`],
    [
      `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`,
      jpeg,
      "\nendstream",
    ],
    [`<< /Length ${content.length} >>\nstream\n${content}\nendstream`],
  ];
  const parts: Uint8Array[] = [];
  let length = 0;
  const add = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? new TextEncoder().encode(part) : part;
    parts.push(bytes);
    length += bytes.length;
  };
  add("%PDF-1.4\n");
  const offsets = objects.map((body, index) => {
    const offset = length;
    add(`${index + 1} 0 obj\n`);
    body.forEach(add);
    add("\nendobj\n");
    return offset;
  });
  const xref = length;
  add(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) add(`${String(offset).padStart(10, "0")} 00000 n \n`);
  add(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/**
 * How two JPEGs of the same size differ in grey: the mean absolute difference (0-255) and
 * the share of pixels more than a quarter of the range apart.
 */
async function pixelDifference(a: Uint8Array, b: Uint8Array): Promise<{ size: { width: number; height: number }; mean: number; farOff: number }> {
  const [first, second] = await Promise.all([a, b].map((bytes) => sharp(bytes).greyscale().raw().toBuffer({ resolveWithObject: true })));
  expect(second!.info.width).toBe(first!.info.width);
  expect(second!.info.height).toBe(first!.info.height);
  let total = 0;
  let farOff = 0;
  for (let i = 0; i < first!.data.length; i++) {
    const difference = Math.abs(first!.data[i]! - second!.data[i]!);
    total += difference;
    if (difference > 64) farOff++;
  }
  return { size: { width: first!.info.width, height: first!.info.height }, mean: total / first!.data.length, farOff: farOff / first!.data.length };
}
