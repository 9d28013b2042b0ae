/**
 * Loading pdf.js and opening documents with it. pdf.js (about 100 ms to load) and, through it,
 * @napi-rs/canvas are imported on the first PDF only, so that the server starts fast.
 */
import type * as PdfJs from "pdfjs-dist/legacy/build/pdf.mjs";
import { BookAnalysisError, type PluginContext } from "../../src/formats/contract.ts";
import { EMBEDDED_DATA_URLS, EmbeddedBinaryDataFactory } from "./embedded-data.ts";

export type PdfJsModule = typeof PdfJs;
export type PdfDocument = PdfJs.PDFDocumentProxy;

let pdfJs: Promise<PdfJsModule> | undefined;

export function loadPdfJs(): Promise<PdfJsModule> {
  pdfJs ??= (async () => {
    // Run the pdf.js worker in this thread: pdf.js uses globalThis.pdfjsWorker instead of
    // starting a Worker from a file (which the compiled binary does not have).
    const worker = await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    Object.assign(globalThis, { pdfjsWorker: worker });
    return import("pdfjs-dist/legacy/build/pdf.mjs");
  })();
  pdfJs.catch(() => (pdfJs = undefined));
  return pdfJs;
}

/**
 * Opens the PDF at `path`, runs `use` on it and destroys the document whatever happens (pdf.js
 * keeps a worker-side copy of every document until then). Aborting `ctx.signal` destroys the
 * document at once, which makes pending pdf.js calls fail; the caller then gets the abort reason.
 * Failures to open become BookAnalysisError("parser"): a password-protected file says so, with
 * `details.passwordProtected`, so that it can be told apart from a broken file.
 */
export async function withPdfDocument<T>(
  path: string,
  ctx: PluginContext,
  use: (document: PdfDocument, pdfjs: PdfJsModule) => Promise<T>,
): Promise<T> {
  ctx.signal.throwIfAborted();
  const pdfjs = await loadPdfJs();
  const data = await Bun.file(path).bytes();
  ctx.signal.throwIfAborted();
  const task = pdfjs.getDocument({
    data,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    BinaryDataFactory: EmbeddedBinaryDataFactory,
    ...EMBEDDED_DATA_URLS,
    // Images larger than this are skipped instead of decoded (huge or hostile images).
    maxImageSize: ctx.limits.maxPixels,
    canvasMaxAreaInBytes: ctx.limits.maxPixels * 4,
  });
  const destroyOnAbort = () => void task.destroy();
  ctx.signal.addEventListener("abort", destroyOnAbort, { once: true });
  try {
    let document: PdfDocument;
    try {
      document = await task.promise;
    } catch (error) {
      throw openFailure(error, pdfjs);
    }
    const result = await use(document, pdfjs);
    // pdf.js runs in this thread, in long synchronous stretches and with awaits that the abort
    // does not cut short (canvas encoding): an abort that arrived meanwhile still wins.
    ctx.signal.throwIfAborted();
    return result;
  } catch (error) {
    throw ctx.signal.aborted ? ctx.signal.reason : error;
  } finally {
    ctx.signal.removeEventListener("abort", destroyOnAbort);
    await task.destroy();
  }
}

function openFailure(error: unknown, pdfjs: PdfJsModule): BookAnalysisError {
  if (error instanceof pdfjs.PasswordException) {
    return new BookAnalysisError("parser", "the PDF is password-protected", { passwordProtected: true });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new BookAnalysisError("parser", `the PDF cannot be read: ${reason}`);
}
