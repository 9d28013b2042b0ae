/**
 * Entry point of a PDF worker thread (started by worker-pool.ts): runs one pdf.js job at a
 * time, analysis or rendering, and answers with a PdfJobReply. pdf.js works in long
 * synchronous stretches (100 ms to seconds per page); here they block this thread, not the
 * server's. The compiled binary bundles this file as a second entry point (see build.ts).
 */
import { analyzePdf } from "./analyze.ts";
import { renderPdfPage } from "./page-render.ts";
import { preloadPdfRuntime } from "./pdfjs-runtime.ts";
import { warmUpPdfRendering } from "./warm-up.ts";
import { serializeError } from "../../src/formats/thread-errors.ts";
import type { PdfJob, PdfJobReply } from "./worker-protocol.ts";

declare const self: Worker;

// The pool starts a worker for a job or ahead of one (a PDF book about to be read): either way
// pdf.js is needed, and loading it now overlaps whatever comes before the job. The warm-up
// render (warm-up.ts) then does the once-per-thread work a first page would otherwise pay for;
// jobs wait for it. If it fails, the jobs run anyway and show the failure themselves.
preloadPdfRuntime();
const warmedUp = warmUpPdfRendering().catch(() => undefined);

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

self.addEventListener("message", async (event: MessageEvent<PdfJob>) => {
  await warmedUp;
  const { reply, transfer } = await run(event.data);
  self.postMessage(reply, transfer);
});
