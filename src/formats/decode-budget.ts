/**
 * One memory budget for all image decoding in the process: page reads (inflate + scale),
 * re-encoding and thumbnails, whether a request or a scan asks. Each decode reserves what it
 * can need (see `decodeCost`) before it starts and gives it back when done;
 * decodes that do not fit wait in arrival order, and one that could never fit is refused with
 * `limit_exceeded` (422) instead of running. So however many requests arrive, decoding holds at
 * most the budget on top of the server's ordinary memory.
 *
 * Reservations nest: work already running under a reservation (a page read that scales its
 * page) does not reserve again, which would deadlock once the budget is full of such readers.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { failure } from "./errors.ts";
import { formatBytes } from "./limits.ts";

const DEFAULT_DECODE_BUDGET_BYTES = 512 * 1024 * 1024;

export class DecodeBudget {
  private reserved = 0;
  private readonly waiting: { cost: number; start: () => void }[] = [];
  private readonly inside = new AsyncLocalStorage<true>();
  /** The most ever reserved at once (for benchmarks and tests). */
  peakReservedBytes = 0;

  constructor(private budgetBytes: number = DEFAULT_DECODE_BUDGET_BYTES) {}

  /** Changes the budget (from the configuration at start). */
  resize(budgetBytes: number): void {
    this.budgetBytes = budgetBytes;
    this.admitWaiting();
  }

  get limitBytes(): number {
    return this.budgetBytes;
  }

  /** Runs `work` once `costBytes` fit in the budget; refuses work that never could. */
  async run<T>(costBytes: number, work: () => Promise<T>): Promise<T> {
    if (this.inside.getStore()) return work();
    const cost = Math.max(1, Math.ceil(costBytes));
    if (cost > this.budgetBytes) {
      throw failure(
        "page_extraction",
        "limit_exceeded",
        `Decoding this image needs about ${formatBytes(cost)}, more than the decode budget of ${formatBytes(this.budgetBytes)}`,
        { needed: cost, limit: this.budgetBytes },
      );
    }
    await this.reserve(cost);
    try {
      return await this.inside.run(true, work);
    } finally {
      this.reserved -= cost;
      this.admitWaiting();
    }
  }

  private reserve(cost: number): Promise<void> {
    if (this.waiting.length === 0 && this.reserved + cost <= this.budgetBytes) {
      this.take(cost);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ cost, start: resolve }));
  }

  private take(cost: number): void {
    this.reserved += cost;
    this.peakReservedBytes = Math.max(this.peakReservedBytes, this.reserved);
  }

  /** First come, first served: a large decode at the head is not overtaken by small ones. */
  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.reserved + this.waiting[0]!.cost <= this.budgetBytes) {
      const next = this.waiting.shift()!;
      this.take(next.cost);
      next.start();
    }
  }
}

/** The process's budget; `longbox serve` sizes it from `files.decode_budget_mb`. */
export const decodeBudget = new DecodeBudget();

/**
 * Bytes a decode can hold: the encoded input twice (our copy, and the decoder's, or the
 * inflate buffer while it doubles), plus the pixels as RGBA.
 */
export function decodeCost(inputBytes: number, pixels: number): number {
  return inputBytes * 2 + pixels * 4;
}
