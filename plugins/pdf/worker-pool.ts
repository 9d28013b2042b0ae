/**
 * A small pool of PDF worker threads (worker.ts) that runs pdf.js jobs off the server's
 * thread. Workers start on the first job, not with the server, and each runs one job at a
 * time; jobs beyond that wait here, in order.
 *
 * - Abort: a job whose signal fires is rejected with the signal's reason at once (the registry
 *   relies on that). A waiting job is simply dropped; a running one has its worker terminated:
 *   pdf.js cannot be interrupted inside its synchronous stretches, and aborts are rare (scan
 *   cancelled, time limit reached). The next job starts a fresh worker.
 * - Crash: a worker that dies (uncaught error, failed start) is dropped, and its job rejected
 *   with a BookAnalysisError (`pdf_rendering` for a rendering, `other` for an analysis).
 * - Exit: idle workers are unref'd, a worker with a job is ref'd (src/formats/pool-worker.ts).
 */
import { availableParallelism } from "node:os";
import type { BookErrorType } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { type BunWorker, startPoolWorker } from "../../src/formats/pool-worker.ts";
import { deserializeError } from "../../src/formats/thread-errors.ts";
import type { PdfJob, PdfJobReply, PdfJobResult, PdfWarmUp, PdfWarmUpOutcome, PdfWarmUpReport } from "./worker-protocol.ts";

/** One worker is enough on 2 cores (the server needs the other); never more than 2. */
const POOL_SIZE = Math.min(2, Math.max(1, availableParallelism() - 1));

interface QueuedJob {
  job: PdfJob;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: BunWorker;
  running: QueuedJob | undefined;
  /** Settles PdfWorkerPool.warm's answer, while the worker warms up. */
  warming?: (outcome: PdfWarmUpOutcome) => void;
}

export class PdfWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: QueuedJob[] = [];

  constructor(
    private readonly workerUrl: URL,
    private readonly size: number,
  ) {}

  run<J extends PdfJob>(job: J, signal: AbortSignal): Promise<PdfJobResult<J>> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<PdfJobResult<J>>((resolve, reject) => {
      const abort = () => this.abandon(queued, signal.reason);
      const queued: QueuedJob = {
        job,
        resolve: (value) => {
          signal.removeEventListener("abort", abort);
          resolve(value as PdfJobResult<J>);
        },
        reject: (error) => {
          signal.removeEventListener("abort", abort);
          reject(error);
        },
      };
      signal.addEventListener("abort", abort, { once: true });
      this.waiting.push(queued);
      this.dispatch();
    });
  }

  /**
   * Starts a worker when none runs yet, before the first job needs it: it loads pdf.js and
   * renders the warm-up page (warm-up.ts), which the jobs sent meanwhile wait for, unless one
   * came while pdf.js loaded. Resolves with how the warm-up went (null: a worker ran already;
   * "failed" too when the worker stopped).
   */
  warm(): Promise<PdfWarmUpOutcome | null> {
    if (this.slots.length > 0) return Promise.resolve(null);
    const slot = this.startWorker();
    const outcome = new Promise<PdfWarmUpOutcome>((resolve) => (slot.warming = resolve));
    const warmUp: PdfWarmUp = { kind: "warm-up" };
    slot.worker.postMessage(warmUp);
    return outcome;
  }

  /** Hands waiting jobs to idle workers, starting workers up to the pool size. */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      const slot = this.slots.find((candidate) => !candidate.running) ?? (this.slots.length < this.size ? this.startWorker() : undefined);
      if (!slot) return;
      const queued = this.waiting.shift()!;
      slot.running = queued;
      slot.worker.ref();
      slot.worker.postMessage(queued.job);
    }
  }

  private startWorker(): Slot {
    const onReply = (reply: PdfJobReply | PdfWarmUpReport) => {
      if ("warmUp" in reply) return slot.warming?.(reply.warmUp);
      const queued = slot.running;
      if (!queued) return;
      slot.running = undefined;
      slot.worker.unref();
      if (reply.ok) queued.resolve(reply.value);
      else queued.reject(deserializeError(reply.error));
      this.dispatch();
    };
    const slot: Slot = { worker: startPoolWorker(this.workerUrl, onReply, (cause) => this.crashed(slot, cause)), running: undefined };
    this.slots.push(slot);
    return slot;
  }

  private crashed(slot: Slot, cause: string): void {
    if (!this.slots.includes(slot)) return; // already dropped: terminated after an abort
    slot.warming?.("failed");
    const queued = slot.running;
    this.drop(slot);
    if (queued) {
      const type: BookErrorType = queued.job.kind === "render" ? "pdf_rendering" : "other";
      queued.reject(failure(type, "unexpected", `The PDF worker stopped unexpectedly (${cause})`));
    }
    this.dispatch();
  }

  private abandon(queued: QueuedJob, reason: unknown): void {
    const waitingAt = this.waiting.indexOf(queued);
    if (waitingAt >= 0) this.waiting.splice(waitingAt, 1);
    const slot = this.slots.find((candidate) => candidate.running === queued);
    if (slot) this.drop(slot);
    queued.reject(reason);
    this.dispatch();
  }

  private drop(slot: Slot): void {
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.worker.terminate();
  }
}

/**
 * The pool of the PDF plugin. The worker is a second entry point of the compiled binary,
 * stored next to the main one (build.ts names entry points by file name only), so that this
 * URL, relative to the module, finds it both from source and inside the binary.
 */
export const pdfWorkers = new PdfWorkerPool(new URL("./worker.ts", import.meta.url), POOL_SIZE);
