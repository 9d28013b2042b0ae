/** Default AnalysisLimits and the checks that every archive reader applies before inflating. */
import type { AnalysisLimits } from "./contract.ts";
import { failure } from "./errors.ts";

export const DEFAULT_LIMITS: AnalysisLimits = {
  // A single scanned page is rarely above 50 MB; 256 MiB leaves room for huge PNG spreads.
  maxEntryBytes: 256 * 1024 * 1024,
  maxEntries: 50_000,
  // 16k x 16k: enough for double-page spreads, far below what exhausts memory when decoded.
  maxPixels: 268_402_689,
  // Deflate cannot exceed about 1032:1; real comic pages compress at most a few times. Text and
  // blank images may reach 100:1 and more, so the bar is set well above that.
  maxCompressionRatio: 1000,
};

/**
 * Entries below this size are never rejected for their compression ratio: a 6 KiB .DS_Store
 * squeezed into 40 bytes is normal, and a small entry cannot be a bomb anyway.
 */
const RATIO_CHECK_FLOOR_BYTES = 1024 * 1024;

export function resolveLimits(overrides?: Partial<AnalysisLimits>): AnalysisLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}

/** Rejects an entry whose declared sizes break the limits, before any byte is inflated. */
export function checkDeclaredEntrySize(
  limits: AnalysisLimits,
  name: string,
  compressedSize: number,
  uncompressedSize: number,
): void {
  if (uncompressedSize > limits.maxEntryBytes) {
    throw failure(
      "parser",
      "limit_exceeded",
      `Entry "${name}" declares ${formatBytes(uncompressedSize)} uncompressed, more than the ` +
        `limit of ${formatBytes(limits.maxEntryBytes)} for one entry`,
      { entry: name, uncompressedSize, limit: limits.maxEntryBytes },
    );
  }
  checkDeclaredRatio(limits, `Entry "${name}"`, compressedSize, uncompressedSize, { entry: name });
}

/**
 * Rejects compressed data that declares it expands more than the ratio limit: one entry, or a
 * whole solid block or compressed stream (7z blocks, .tar.xz), described by `what`.
 */
export function checkDeclaredRatio(
  limits: AnalysisLimits,
  what: string,
  compressedSize: number,
  uncompressedSize: number,
  details: Record<string, unknown> = {},
): void {
  if (uncompressedSize < RATIO_CHECK_FLOOR_BYTES) return;
  const ratio = uncompressedSize / Math.max(compressedSize, 1);
  if (ratio > limits.maxCompressionRatio) {
    throw failure(
      "parser",
      "limit_exceeded",
      `${what} would expand ${Math.round(ratio)} times (limit ${limits.maxCompressionRatio}): ` +
        `refusing to decompress a likely decompression bomb`,
      { ...details, ratio, limit: limits.maxCompressionRatio },
    );
  }
}

/**
 * Rejects an entry name that would leave the folder it is extracted into (absolute, or with a
 * `..` segment). Containers that are extracted to disk (7z, compressed tar) check every name.
 */
export function checkEntryName(name: string): void {
  const segments = name.split("/");
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name) || name.includes("\\") || segments.includes("..")) {
    throw failure("parser", "corrupt", `Entry "${name}" has a name that escapes the archive (absolute or with "..")`, { entry: name });
  }
}

export function checkEntryCount(limits: AnalysisLimits, count: number): void {
  if (count > limits.maxEntries) {
    throw failure(
      "parser",
      "limit_exceeded",
      `The archive lists ${count} entries, more than the limit of ${limits.maxEntries}`,
      { entries: count, limit: limits.maxEntries },
    );
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}
