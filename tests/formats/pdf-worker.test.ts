/**
 * The PDF plugin renders and analyses in worker threads: the server's own thread must stay
 * free to answer requests while pdf.js works, and aborting or losing a worker must not leave
 * the plugin stuck.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BookAnalysisError } from "../../src/formats/contract.ts";
import { pdfPlugin } from "../../plugins/pdf/index.ts";
import { PdfWorkerPool } from "../../plugins/pdf/worker-pool.ts";
import { CRASHING_PDF_PATH } from "../helpers/crashing-pdf-worker.ts";
import { fixture } from "../helpers/fixtures.ts";
import { anyRejection, pluginContext } from "./registry-setup.ts";

/** The longest time between two ticks of a 10 ms timer while `work` runs. */
async function longestTimerGap(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}


// The slowest fixture pages to render (about 0.5-2.5 s each on 2 cores, in long synchronous
// stretches of pdf.js and canvas work): a huge JPEG, a tall page and JBIG2 scans.
const SLOW_PAGES = [
  ["pdfjs/large_jpeg_downscale.pdf", 1],
  ["stump/tall.pdf", 1],
  ["pdfjs/issue12963.pdf", 1],
  ["pdfjs/issue12963.pdf", 2],
] as const;
const pdf = (name: string) => fixture(join("pdf", name));

describe("PDF work off the main thread", () => {
  test("a 10 ms timer keeps firing while slow pages render and a PDF is analysed", async () => {
    // Warm-up: the first call also loads pdf.js and canvas, which is not what is measured.
    await pdfPlugin.readPage(pdf("pdfjs/alphatrans.pdf"), 1, pluginContext(), { maxWidth: 100 });
    const gap = await longestTimerGap(() =>
      Promise.all([
        ...SLOW_PAGES.map(([name, page]) => pdfPlugin.readPage(pdf(name), page, pluginContext())),
        pdfPlugin.analyze(pdf("pdfjs/pdkids.pdf"), pluginContext()),
      ]),
    );
    // On the main thread the loop would stall for whole renders (0.5-2.5 s each); 400 ms leaves
    // room for a busy 2-core CI machine descheduling the test process (100 ms failed there).
    expect(gap).toBeLessThan(400);
  }, 30_000);

  test("aborting a render returns at once with the abort reason, and the next call works", async () => {
    const controller = new AbortController();
    const reading = pdfPlugin.readPage(pdf("pdfjs/large_jpeg_downscale.pdf"), 1, pluginContext(controller.signal));
    await Bun.sleep(100);
    const abortedAt = performance.now();
    controller.abort(new BookAnalysisError("other", "time limit"));
    const error = await anyRejection(reading);
    expect(performance.now() - abortedAt).toBeLessThan(50);
    expect(error).toBeInstanceOf(BookAnalysisError);
    expect((error as BookAnalysisError).message).toBe("time limit");

    const next = await pdfPlugin.readPage(pdf("pdfjs/alphatrans.pdf"), 1, pluginContext(), { maxWidth: 200 });
    expect(next.mediaType).toBe("image/jpeg");
    expect(next.bytes.length).toBeGreaterThan(0);
  }, 30_000);

  test("a job aborted while it waits is dropped, and the running one goes on", async () => {
    const pool = new PdfWorkerPool(new URL("../../plugins/pdf/worker.ts", import.meta.url), 1);
    const { limits } = pluginContext();
    const running = pool.run({ kind: "render", path: pdf("pdfjs/alphatrans.pdf"), pageNumber: 1, maxWidth: 100, limits }, pluginContext().signal);
    const controller = new AbortController();
    const waiting = pool.run({ kind: "analyze", path: pdf("pdfjs/tracemonkey.pdf"), limits }, controller.signal);
    controller.abort(new Error("scan cancelled"));
    expect(((await anyRejection(waiting)) as Error).message).toBe("scan cancelled");
    expect((await running).bytes.length).toBeGreaterThan(0);
  }, 30_000);

  test("a worker that dies fails its job with a typed error and is replaced", async () => {
    const pool = new PdfWorkerPool(new URL("../helpers/crashing-pdf-worker.ts", import.meta.url), 1);
    const { limits, signal } = pluginContext();
    const crash = await anyRejection(pool.run({ kind: "render", path: CRASHING_PDF_PATH, pageNumber: 1, maxWidth: undefined, limits }, signal));
    expect(crash).toBeInstanceOf(BookAnalysisError);
    expect(crash).toMatchObject({ type: "pdf_rendering", details: { reason: "unexpected" } });
    expect((crash as Error).message).toContain("The PDF worker stopped unexpectedly");
    const analysis = await pool.run({ kind: "analyze", path: pdf("pdfjs/alphatrans.pdf"), limits }, signal);
    expect(analysis.pages.length).toBe(1);
  }, 30_000);

  test("errors other than BookAnalysisError keep what the registry looks at", async () => {
    const error = await anyRejection(pdfPlugin.analyze("/no/such/book.pdf", pluginContext()));
    expect(error).toMatchObject({ code: "ENOENT" });
  });
});
