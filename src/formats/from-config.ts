/**
 * The format registry the configuration asks for: built-in plugins, then those in plugins.dir;
 * also sizes the process's decode budget (files.decode_budget_mb).
 */
import { builtinPlugins } from "../../plugins/index.ts";
import { dataPaths } from "../config/paths";
import type { Config } from "../config/schema";
import { decodeBudget } from "./decode-budget";
import { FormatRegistry, type RegistryOptions } from "./registry";

/** `extractionCache` overrides files.archive_cache_dir/_max_mb (the analyze command writes nothing lasting). */
export async function formatRegistryFor(config: Config, extractionCache?: RegistryOptions["extractionCache"]): Promise<FormatRegistry> {
  const scanner = config.scanner;
  decodeBudget.resize(config.files.decode_budget_mb * 1024 * 1024);
  const external = config.plugins.dir ? await (await import("./loader")).loadPlugins(config.plugins.dir) : [];
  return new FormatRegistry([...builtinPlugins, ...external], {
    limits: {
      maxEntryBytes: scanner.max_entry_bytes,
      maxEntries: scanner.max_entries,
      maxCompressionRatio: scanner.max_compression_ratio,
      maxPixels: scanner.max_image_pixels,
    },
    timeoutMs: scanner.book_timeout_seconds * 1000,
    extractionCache: extractionCache ?? { dir: dataPaths(config).archiveCacheDir, maxBytes: config.files.archive_cache_max_mb * 1024 * 1024 },
  });
}
