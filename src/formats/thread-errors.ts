/**
 * Errors crossing a thread boundary (worker threads answering the server thread). They are
 * flattened on the worker side and rebuilt on the server side, because a cloned Error loses
 * its class (BookAnalysisError), its `type`, its `details` and a system error's `code`.
 */
import { BookAnalysisError, type BookErrorType } from "./contract.ts";

/** A failure as it crosses the thread boundary. */
export type SerializedError =
  | { kind: "book"; type: BookErrorType; message: string; details: Record<string, unknown> | undefined }
  | { kind: "error"; name: string; message: string; code: string | undefined };

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
