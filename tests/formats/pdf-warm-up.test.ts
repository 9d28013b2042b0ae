/**
 * A PDF worker renders a small page of its own as it starts (plugins/pdf/warm-up.ts): the page
 * must go through every stage it is there to warm up, and neither a failed warm-up nor one
 * still running may change what the worker answers.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { BookAnalysisError } from "../../src/formats/contract.ts";
import { renderPdfPage } from "../../plugins/pdf/page-render.ts";
import { warmUpPdf, warmUpPdfRendering } from "../../plugins/pdf/warm-up.ts";
import { PdfWorkerPool } from "../../plugins/pdf/worker-pool.ts";
import { fixture } from "../helpers/fixtures.ts";
import { anyRejection, pluginContext } from "./registry-setup.ts";

const pdf = (name: string) => fixture(join("pdf", name));
const scratch = mkdtempSync(join(tmpdir(), "pdf-warm-up-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** A file with a PDF header and nothing pdf.js can repair after it. */
const BROKEN_PDF = join(scratch, "broken.pdf");
writeFileSync(BROKEN_PDF, "%PDF-1.7\nthis is not a PDF body\n%%EOF\n");

/** The mean colour of a square of `image` (raw RGB), `size` px from (x, y). */
function meanColour(image: { data: Buffer; info: { width: number; channels: number } }, x: number, y: number, size: number): number[] {
  const sums = [0, 0, 0];
  for (let row = y; row < y + size; row++) {
    for (let column = x; column < x + size; column++) {
      const at = (row * image.info.width + column) * image.info.channels;
      for (let channel = 0; channel < 3; channel++) sums[channel]! += image.data[at + channel]!;
    }
  }
  return sums.map((sum) => Math.round(sum / (size * size)));
}

describe("PDF worker warm-up", () => {
  test("the warm-up page draws its band, text, Flate, JPEG and CCITT images and its form field", async () => {
    // 600 px for a 200 pt page: 3 px per point. The 64 px images are drawn 48 pt (144 px) wide.
    const page = await renderPdfPage(await warmUpPdf(), 1, pluginContext().limits, 600);
    expect(page.mediaType).toBe("image/jpeg");
    const image = await sharp(page.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(image.info.width).toBe(600);
    const [red, green, blue] = meanColour(image, 200, 40, 20); // the band, right of the text
    expect(blue! - red!).toBeGreaterThan(100);
    expect(green).toBeLessThan(160);
    // Noise images average to mid grey, unlike the white page; the CCITT image is black.
    for (const x of [20, 236]) for (const channel of meanColour(image, x, 290, 100)) expect(Math.abs(channel - 128)).toBeLessThan(40);
    for (const channel of meanColour(image, 452, 290, 100)) expect(channel).toBeLessThan(30);
    // The field's value, "42", drawn from its appearance stream near its bottom-left corner.
    expect(Math.min(...meanColour(image, 40, 510, 40))).toBeLessThan(230);
  });

  test("warmUpPdfRendering fails when a stage it needs fails", async () => {
    const deflateSync = zlib.deflateSync;
    zlib.deflateSync = () => {
      throw new Error("deflateSync is made unavailable by the test");
    };
    try {
      expect(((await anyRejection(warmUpPdfRendering())) as Error).message).toContain("deflateSync is made unavailable");
    } finally {
      zlib.deflateSync = deflateSync;
    }
    await warmUpPdfRendering();
  });

  test("a worker whose warm-up failed still renders pages and reports a broken PDF clearly", async () => {
    const pool = new PdfWorkerPool(new URL("../helpers/warm-up-failing-pdf-worker.ts", import.meta.url), 1);
    const { limits, signal } = pluginContext();
    // No job meanwhile: the warm-up runs, and fails.
    expect(await pool.warm()).toBe("failed");
    const page = await pool.run({ kind: "render", path: pdf("pdfjs/alphatrans.pdf"), pageNumber: 1, maxWidth: 100, limits }, signal);
    expect(page.mediaType).toBe("image/jpeg");
    expect((await sharp(page.bytes).metadata()).width).toBe(100);
    const broken = await anyRejection(pool.run({ kind: "render", path: BROKEN_PDF, pageNumber: 1, maxWidth: 100, limits }, signal));
    expect(broken).toBeInstanceOf(BookAnalysisError);
    expect(broken).toMatchObject({ type: "parser" });
    expect((broken as Error).message).toContain("the PDF cannot be read");
  }, 30_000);

  test("a worker started ahead renders the warm-up page unless a job comes while pdf.js loads; either way jobs are answered as without it", async () => {
    const { limits, signal } = pluginContext();
    const rendered = new PdfWorkerPool(new URL("../../plugins/pdf/worker.ts", import.meta.url), 1);
    expect(await rendered.warm()).toBe("rendered");
    expect(await rendered.warm()).toBeNull(); // one worker runs already
    const afterWarmUp = await rendered.run({ kind: "render", path: pdf("pdfjs/issue12963.pdf"), pageNumber: 1, maxWidth: 800, limits }, signal);
    expect((await sharp(afterWarmUp.bytes).metadata()).width).toBe(800);

    // A Read clicked at once: the job, sent as the worker starts, does not wait for a warm-up.
    const pool = new PdfWorkerPool(new URL("../../plugins/pdf/worker.ts", import.meta.url), 1);
    const warming = pool.warm();
    const [first, later, broken] = await Promise.allSettled([
      pool.run({ kind: "render", path: pdf("pdfjs/issue12963.pdf"), pageNumber: 1, maxWidth: 800, limits }, signal),
      pool.run({ kind: "render", path: pdf("pdfjs/issue12963.pdf"), pageNumber: 5, maxWidth: 800, limits }, signal),
      pool.run({ kind: "analyze", path: BROKEN_PDF, limits }, signal),
    ]);
    for (const rendered of [first, later]) {
      expect(rendered.status).toBe("fulfilled");
      const { width } = await sharp((rendered as PromiseFulfilledResult<{ bytes: Uint8Array }>).value.bytes).metadata();
      expect(width).toBe(800);
    }
    expect(broken).toMatchObject({ status: "rejected", reason: { type: "parser" } });
    expect(await warming).toBe("skipped");
  }, 60_000);
});
