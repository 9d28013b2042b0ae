/**
 * Failures that say nothing about a book: the database is unreachable, the disk is full, the
 * system is short of processes or file handles, a PostgreSQL transaction conflicted with a
 * concurrent one (another scan worker's: run again, the same write succeeds). The scanner
 * retries them (scanner.transient_retry_seconds) and, if they last, ends the scan saying why;
 * they never become a book's analysis error.
 */
import { transactionConflict, unavailability, type TransactionConflict } from "../db";
import { errorChain } from "../errors";
import { OBJECT_STORAGE_FAILURE } from "../storage/s3-bucket";

const FILESYSTEM: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is exhausted",
  EAGAIN: "a resource was temporarily unavailable (EAGAIN)",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  ENOMEM: "the system is out of memory",
  EBUSY: "a resource was busy",
  // The bucket of files.storage: s3 is away or refused: no book causes that.
  [OBJECT_STORAGE_FAILURE]: "the object storage is unreachable or refused the request",
};

const DATABASE: Record<string, string> = {
  unreachable: "the database is unreachable",
  disk_full: "the database's disk is full",
  read_only: "the database cannot be written",
  busy: "the database is busy",
};

const CONFLICT: Record<TransactionConflict, string> = {
  deadlock: "a database transaction deadlocked with a concurrent one and was rolled back (PostgreSQL 40P01)",
  serialization_failure: "a database transaction conflicted with a concurrent one and was rolled back (PostgreSQL 40001)",
};

/** Why `error` is transient, or undefined for a failure that belongs to what was being done. */
export function transientCause(error: unknown): string | undefined {
  const database = unavailability(error);
  if (database) return DATABASE[database];
  const conflict = transactionConflict(error);
  if (conflict) return CONFLICT[conflict];
  for (const current of errorChain(error)) {
    const code = "code" in current ? String(current.code) : "";
    if (FILESYSTEM[code]) return FILESYSTEM[code];
    // Book analysis errors carry the system error's code in their details.
    const details = "details" in current ? (current.details as { code?: unknown } | undefined) : undefined;
    if (details && typeof details.code === "string" && FILESYSTEM[details.code]) return FILESYSTEM[details.code];
  }
  return undefined;
}

/** A transient failure that outlasted its retries. */
export class TransientFailure extends Error {
  override name = "TransientFailure";
}

/**
 * Runs `work`, retrying transient failures with pauses that double from half a second (up to
 * `maxPauseMs`) for `budgetMs` from the first failure; anything else is thrown at once.
 * The budget is wall-clock time, attempts included: an attempt can itself take seconds (a
 * connection attempt to a database that is away), and counting only the pauses let a scan
 * outlive an outage much longer than its budget.
 * `onRetry` hears each pause, for the log.
 */
export async function retryTransient<T>(
  work: () => Promise<T>,
  signal: AbortSignal,
  onRetry: (cause: string, attempt: number) => void,
  budgetMs: number,
  maxPauseMs = Infinity,
): Promise<T> {
  let deadline: number | undefined;
  for (let attempt = 1, pause = 500; ; attempt++, pause = Math.min(pause * 2, maxPauseMs)) {
    try {
      return await work();
    } catch (error) {
      const cause = transientCause(error);
      if (!cause || signal.aborted) throw error;
      deadline ??= performance.now() + budgetMs;
      const wait = Math.min(pause, deadline - performance.now());
      if (wait <= 0) throw new TransientFailure(cause, { cause: error });
      onRetry(cause, attempt);
      await sleep(wait, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
