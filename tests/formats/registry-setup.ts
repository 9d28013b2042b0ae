/** The registry the format tests run against: the built-in plugins with default limits. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BookAnalysisError, type PluginContext } from "../../src/formats/contract.ts";
import { ExtractionCache } from "../../src/formats/extraction-cache.ts";
import { FormatRegistry } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";

export const registry = new FormatRegistry(builtinPlugins, { timeoutMs: 10_000 });

/** What a plugin is called with, for tests that call one directly: generous limits, `signal`. */
export function pluginContext(signal = new AbortController().signal): PluginContext {
  return {
    limits: { maxEntryBytes: 256 * 1024 * 1024, maxEntries: 10_000, maxPixels: 100_000_000, maxCompressionRatio: 1000 },
    signal,
    extractionCache: new ExtractionCache(join(tmpdir(), "longbox-test-extraction-cache"), 0),
  };
}

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
