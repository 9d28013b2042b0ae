/** The registry the format tests run against: the built-in plugins with default limits. */
import { BookAnalysisError } from "../../src/formats/contract.ts";
import { FormatRegistry } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";

export const registry = new FormatRegistry(builtinPlugins, { timeoutMs: 10_000 });

/** Whatever a call rejects with; a call that resolves fails the test. */
export async function anyRejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** The BookAnalysisError a call rejects with (anything else fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<BookAnalysisError> {
  const error = await anyRejection(promise);
  if (error instanceof BookAnalysisError) return error;
  throw error;
}
