/**
 * Shared ways of failing. Every BookAnalysisError raised by the built-in plugins carries a
 * machine-readable `details.reason` next to its BookErrorType, so callers can react to the
 * cause (the HTTP layer answers 404 for `not_found`, a scan report can count `encrypted`
 * books) without parsing messages.
 */
import { BookAnalysisError, type BookErrorType } from "./contract.ts";

export type FailureReason =
  /** The content is not a format any plugin reads. */
  | "unknown_format"
  /** The container's structure is damaged or truncated. */
  | "corrupt"
  /** Entries or headers are password protected. */
  | "encrypted"
  /** One volume of a multi-volume RAR set. */
  | "multi_volume"
  /** A compression method or format version the server cannot decode. */
  | "unsupported"
  /** One of the AnalysisLimits was exceeded (decompression bombs, huge pages). */
  | "limit_exceeded"
  /** The requested page or resource does not exist in the book. */
  | "not_found"
  /** The per-book time limit ran out. */
  | "timeout"
  /** The scan was cancelled by the caller. */
  | "aborted"
  /** A failure nobody anticipated (a bug, an I/O error): see the message. */
  | "unexpected";

export function failure(
  type: BookErrorType,
  reason: FailureReason,
  message: string,
  details: Record<string, unknown> = {},
): BookAnalysisError {
  return new BookAnalysisError(type, message, { ...details, reason });
}

export function failureReason(error: unknown): FailureReason | undefined {
  if (!(error instanceof BookAnalysisError)) return undefined;
  const reason = error.details?.reason;
  return typeof reason === "string" ? (reason as FailureReason) : undefined;
}

/** A page number outside 1..pageCount or a resource path that is not in the book. */
export function isNotFound(error: unknown): boolean {
  return failureReason(error) === "not_found";
}

export function throwIfAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof BookAnalysisError) throw reason;
  throw failure("other", "aborted", "Reading the book was cancelled");
}
