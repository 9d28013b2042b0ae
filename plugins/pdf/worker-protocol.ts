/**
 * The messages between the PDF worker pool (worker-pool.ts, server thread) and its workers
 * (worker.ts). Every message is structured-clone safe: plain objects, no classes. Errors cross
 * as src/formats/thread-errors.ts flattens them.
 */
import type { AnalysisLimits, AnalysisResult, PageImage } from "../../src/formats/contract.ts";
import type { SerializedError } from "../../src/formats/thread-errors.ts";

/** One piece of pdf.js work, sent to a worker. A worker runs one job at a time. */
export type PdfJob =
  | { kind: "analyze"; path: string; limits: AnalysisLimits }
  | { kind: "render"; path: string; pageNumber: number; maxWidth: number | undefined; limits: AnalysisLimits };

/**
 * Sent by the pool to a worker it starts ahead of a read (PdfWorkerPool.warm): render the
 * warm-up page (warm-up.ts) unless a job has come by the time pdf.js is loaded. Not a job: the
 * worker reports how it went (PdfWarmUpReport); the jobs that follow wait for it.
 */
export interface PdfWarmUp {
  kind: "warm-up";
}

/** How a warm-up went: rendered, skipped for a job that came first, or failed (jobs run anyway). */
export type PdfWarmUpOutcome = "rendered" | "skipped" | "failed";
export interface PdfWarmUpReport {
  warmUp: PdfWarmUpOutcome;
}

export type PdfJobResult<J extends PdfJob> = J extends { kind: "analyze" } ? AnalysisResult : PageImage;

/** The worker's answer to its current job. */
export type PdfJobReply = { ok: true; value: AnalysisResult | PageImage } | { ok: false; error: SerializedError };
