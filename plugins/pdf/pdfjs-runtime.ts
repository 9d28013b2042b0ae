/**
 * Loading pdf.js and opening documents with it, in a PDF worker thread (see worker.ts). pdf.js
 * (about 100 ms to load, 300 ms on a loaded machine) and @napi-rs/canvas are imported as the
 * worker starts (preloadPdfRuntime), not with the server.
 */
import type * as PdfJs from "pdfjs-dist/legacy/build/pdf.mjs";
import { BookAnalysisError, type AnalysisLimits } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { EMBEDDED_DATA_URLS, EmbeddedBinaryDataFactory } from "./embedded-data.ts";

export type PdfJsModule = typeof PdfJs;
export type PdfDocument = PdfJs.PDFDocumentProxy;
export type PdfPage = PdfJs.PDFPageProxy;
export type PdfViewport = PdfJs.PageViewport;

let pdfJs: Promise<PdfJsModule> | undefined;

export function loadPdfJs(): Promise<PdfJsModule> {
  pdfJs ??= (async () => {
    // Run pdf.js's own worker code in this thread (already a worker of ours): pdf.js uses
    // globalThis.pdfjsWorker instead of starting a Worker from a file of pdfjs-dist, which the
    // compiled binary does not have.
    const worker = await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    Object.assign(globalThis, { pdfjsWorker: worker });
    return import("pdfjs-dist/legacy/build/pdf.mjs");
  })();
  pdfJs.catch(() => (pdfJs = undefined));
  return pdfJs;
}

/**
 * Loads pdf.js, @napi-rs/canvas and sharp (prescaled-images.ts) as the worker starts, so that
 * a worker started ahead of a read (FormatPlugin.warm, while the book's page or the reader
 * opens) has them when the first page is asked for; every job needs pdf.js anyway. A failure
 * shows on the job itself.
 */
export function preloadPdfRuntime(): void {
  loadPdfJs().catch(() => undefined);
  import("@napi-rs/canvas").catch(() => undefined);
  import("sharp").catch(() => undefined);
}

/**
 * Opens the PDF (a file's path, or the file's bytes), runs `use` on it and destroys the
 * document whatever happens (pdf.js keeps a worker-side copy of every document until then). No
 * AbortSignal: the pool stops an abandoned job by terminating its worker.
 * Failures to open become BookAnalysisError("parser"): a password-protected file says so, with
 * `details.passwordProtected`, so that it can be told apart from a broken file.
 */
export async function withPdfDocument<T>(source: string | Uint8Array, limits: AnalysisLimits, use: (document: PdfDocument) => Promise<T>): Promise<T> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    data: typeof source === "string" ? await Bun.file(source).bytes() : source,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    BinaryDataFactory: EmbeddedBinaryDataFactory,
    ...EMBEDDED_DATA_URLS,
    // Images larger than this are skipped instead of decoded (huge or hostile images).
    maxImageSize: limits.maxPixels,
    canvasMaxAreaInBytes: limits.maxPixels * 4,
  });
  try {
    let document: PdfDocument;
    try {
      document = await task.promise;
    } catch (error) {
      throw openFailure(error, pdfjs);
    }
    return await use(document);
  } finally {
    await task.destroy();
  }
}

function openFailure(error: unknown, pdfjs: PdfJsModule): BookAnalysisError {
  if (error instanceof pdfjs.PasswordException) {
    return failure("parser", "encrypted", "the PDF is password-protected", { passwordProtected: true });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return failure("parser", "corrupt", `the PDF cannot be read: ${reason}`);
}
