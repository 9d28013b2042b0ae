/**
 * Entry point of a PDF worker thread (started by worker-pool.ts): runs one pdf.js job at a
 * time, analysis or rendering, and answers with a PdfJobReply. pdf.js works in long
 * synchronous stretches (100 ms to seconds per page); here they block this thread, not the
 * server's. The compiled binary bundles this file as a second entry point (see build.ts).
 */
import { analyzePdf } from "./analyze.ts";
import { renderPdfPage } from "./page-render.ts";
import { loadPdfJs, preloadPdfRuntime } from "./pdfjs-runtime.ts";
import { warmUpPdfRendering } from "./warm-up.ts";
import { serializeError } from "../../src/formats/thread-errors.ts";
import type { PdfJob, PdfJobReply, PdfWarmUp, PdfWarmUpOutcome, PdfWarmUpReport } from "./worker-protocol.ts";

declare const self: Worker;

// The pool starts a worker for a job or ahead of one (a PDF book about to be read): either way
// pdf.js is needed, and loading it now overlaps whatever comes before the job.
preloadPdfRuntime();

/**
 * The warm-up render, when the pool asked for one (a worker started ahead of a read): it does
 * the once-per-thread work that page 1 would otherwise pay for, while the person is still on
 * the book's page. Jobs wait for it; if it fails, they run anyway and show the failure
 * themselves. A worker started for a job gets none: its job warms it up as well. Nor does one
 * whose first job comes while pdf.js loads (a Read clicked at once): the warm-up would only
 * make that job wait longer.
 */
let warmedUp: Promise<unknown> = Promise.resolve();
let jobsReceived = 0;

async function warmUp(): Promise<PdfWarmUpOutcome> {
  try {
    await loadPdfJs();
    // A turn of the event loop first: a job already sent is received before the check below
    // (pdf.js may have loaded within this task's microtasks).
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (jobsReceived > 0) return "skipped";
    await warmUpPdfRendering();
    return "rendered";
  } catch {
    return "failed";
  }
}

async function run(job: PdfJob): Promise<{ reply: PdfJobReply; transfer: Transferable[] }> {
  try {
    if (job.kind === "analyze") return { reply: { ok: true, value: await analyzePdf(job.path, job.limits) }, transfer: [] };
    const page = await renderPdfPage(job.path, job.pageNumber, job.limits, job.maxWidth);
    // canvas encodes into memory it owns, which cannot be transferred: copied here, in this
    // thread, into a buffer that is then moved, not copied, to the server thread.
    const bytes = new Uint8Array(page.bytes);
    return { reply: { ok: true, value: { ...page, bytes } }, transfer: [bytes.buffer] };
  } catch (error) {
    return { reply: { ok: false, error: serializeError(error) }, transfer: [] };
  }
}

self.addEventListener("message", async (event: MessageEvent<PdfJob | PdfWarmUp>) => {
  const message = event.data;
  if (message.kind === "warm-up") {
    warmedUp = warmUp().then((outcome) => {
      const report: PdfWarmUpReport = { warmUp: outcome };
      self.postMessage(report);
    });
    return;
  }
  jobsReceived += 1;
  await warmedUp;
  const { reply, transfer } = await run(message);
  self.postMessage(reply, transfer);
});
