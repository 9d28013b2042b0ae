/**
 * `longbox analyze FILE... [--config PATH]`: runs each file through the format registry the
 * configuration asks for, exactly as a library scan would, and prints one JSON object per
 * line. Problems with a book are part of its line; only a file that cannot be found fails
 * the command. Without a configuration file the defaults apply and nothing is written.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config/load";
import type { BookMetadata, MetadataSource } from "./contract";
import { formatRegistryFor } from "./from-config";
import type { BookAnalysis } from "./registry";

/** One line of `longbox analyze` output. */
export interface AnalyzeReport {
  path: string;
  format: string | null;
  mediaType: string | null;
  pageCount: number | null;
  firstPage: { width: number | null; height: number | null; mediaType: string } | null;
  /** The metadata embedded in the book, as found (not merged with the file name's). */
  metadata: { source: MetadataSource; values: BookMetadata } | null;
  errors: { type: string; message: string }[];
}

/** Returns the exit code: 0 when every file was read, 1 when one of them does not exist. */
export async function analyzeFiles(paths: string[], configPath: string | undefined): Promise<number> {
  // An explicit --config must exist; the default location may be empty (defaults apply).
  const { config } = loadConfig({ path: configPath, defaultsIfMissing: configPath === undefined });
  // Books that must be extracted to be read (solid 7z) go through a temporary folder, removed at the end.
  const extractionDir = mkdtempSync(join(tmpdir(), "longbox-analyze-"));
  try {
    const registry = await formatRegistryFor(config, { dir: extractionDir, maxBytes: 0 });
    let exitCode = 0;
    for (const path of paths) {
      if (!isFile(path)) {
        process.stderr.write(`longbox: no such file: ${path}\n`);
        exitCode = 1;
        continue;
      }
      process.stdout.write(`${JSON.stringify(reportFor(path, await registry.analyze(path)))}\n`);
    }
    return exitCode;
  } finally {
    rmSync(extractionDir, { recursive: true, force: true });
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function reportFor(path: string, analysis: BookAnalysis): AnalyzeReport {
  const { result } = analysis;
  const firstPage = result?.pages[0];
  return {
    path,
    format: analysis.format,
    mediaType: result?.mediaType ?? null,
    pageCount: result ? result.pages.length : null,
    firstPage: firstPage ? { width: firstPage.width, height: firstPage.height, mediaType: firstPage.mediaType } : null,
    metadata: result?.metadata ?? null,
    errors: analysis.errors.map((error) => ({ type: error.type, message: error.message })),
  };
}
