/**
 * The messages between the PDF worker pool (worker-pool.ts, server thread) and its workers
 * (worker.ts). Every message is structured-clone safe: plain objects, no classes. Errors are
 * flattened on the worker side and rebuilt on the server side, because a cloned Error loses
 * its class (BookAnalysisError), its `type` and its `details`.
 */
import { BookAnalysisError, type AnalysisLimits, type AnalysisResult, type BookErrorType, type PageImage } from "../../src/formats/contract.ts";

/** One piece of pdf.js work, sent to a worker. A worker runs one job at a time. */
export type PdfJob =
  | { kind: "analyze"; path: string; limits: AnalysisLimits }
  | { kind: "render"; path: string; pageNumber: number; maxWidth: number | undefined; limits: AnalysisLimits };

export type PdfJobResult<J extends PdfJob> = J extends { kind: "analyze" } ? AnalysisResult : PageImage;

/** A failure as it crosses the thread boundary. */
export type SerializedError =
  | { kind: "book"; type: BookErrorType; message: string; details: Record<string, unknown> | undefined }
  | { kind: "error"; name: string; message: string; code: string | undefined };

/** The worker's answer to its current job. */
export type PdfJobReply = { ok: true; value: AnalysisResult | PageImage } | { ok: false; error: SerializedError };

export function serializeError(error: unknown): SerializedError {
  if (error instanceof BookAnalysisError) return { kind: "book", type: error.type, message: error.message, details: error.details };
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
  if (error instanceof Error) return { kind: "error", name: error.name, message: error.message, code };
  return { kind: "error", name: "Error", message: String(error), code };
}

/**
 * The error as the registry would have seen it in the server thread: a BookAnalysisError
 * keeps its type and details; other errors keep the class and `code` that the registry's
 * toBookAnalysisError looks at (RangeError/SyntaxError become `parser`, ENOENT a missing file).
 */
export function deserializeError(error: SerializedError): Error {
  if (error.kind === "book") return new BookAnalysisError(error.type, error.message, error.details);
  const rebuilt = error.name === "RangeError" ? new RangeError(error.message) : error.name === "SyntaxError" ? new SyntaxError(error.message) : new Error(error.message);
  if (error.code !== undefined) Object.assign(rebuilt, { code: error.code });
  return rebuilt;
}
