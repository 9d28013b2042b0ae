/**
 * The PDF worker (plugins/pdf/worker.ts), except that a job on CRASHING_PDF_PATH kills it with
 * an uncaught error: for testing how the pool copes with a worker that dies.
 */
import "../../plugins/pdf/worker.ts";
import type { PdfJob } from "../../plugins/pdf/worker-protocol.ts";

export const CRASHING_PDF_PATH = "/crash/the/worker.pdf";

declare const self: Worker;

self.addEventListener("message", (event: MessageEvent<PdfJob>) => {
  if (event.data.path === CRASHING_PDF_PATH) throw new Error("worker crash requested by the test");
});
