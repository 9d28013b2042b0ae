/**
 * Rendering one PDF page to a JPEG with pdf.js and @napi-rs/canvas, in a PDF worker (see
 * worker.ts).
 */
import type { AnalysisLimits, PageImage } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { JPEG_QUALITY, PAGE_MEDIA_TYPE } from "./page-format.ts";
import { prescaleLargeImages } from "./prescaled-images.ts";
import { loadPdfJs, withPdfDocument, type PdfDocument } from "./pdfjs-runtime.ts";

/** Width of a rendered page when the caller states none: sharp on a 1200 px reader column. */
const DEFAULT_RENDER_WIDTH = 1200;

export interface RenderSize {
  width: number;
  height: number;
  scale: number;
}

/**
 * The pixel size a page of `pageWidth` x `pageHeight` points is rendered at: `targetWidth`
 * wide, scaled down further so that it stays within `maxPixels` (a 3x3 pt page, a 15 m
 * UserUnit page and a webtoon strip all end up bounded), and never below 1 px.
 */
export function renderSize(pageWidth: number, pageHeight: number, targetWidth: number, maxPixels: number): RenderSize {
  let scale = targetWidth / pageWidth;
  const pixels = pageWidth * scale * pageHeight * scale;
  if (pixels > maxPixels) scale *= Math.sqrt(maxPixels / pixels);
  return {
    width: Math.max(1, Math.floor(pageWidth * scale)),
    height: Math.max(1, Math.floor(pageHeight * scale)),
    scale,
  };
}

export interface RenderOptions {
  /** Scale large images with sharp before pdf.js draws them (prescaled-images.ts); default true. */
  prescaleImages?: boolean;
}

/** Renders page `pageNumber` (1-based) of a PDF (its path or bytes) to a JPEG at most `maxWidth` wide. */
export function renderPdfPage(
  source: string | Uint8Array,
  pageNumber: number,
  limits: AnalysisLimits,
  maxWidth = DEFAULT_RENDER_WIDTH,
  options: RenderOptions = {},
): Promise<PageImage> {
  return withPdfDocument(source, limits, (document) => {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > document.numPages) {
      throw failure("page_extraction", "not_found", `page ${pageNumber} does not exist: the PDF has ${document.numPages} pages`);
    }
    return renderPage(document, pageNumber, limits, maxWidth, options.prescaleImages ?? true);
  });
}

async function renderPage(document: PdfDocument, pageNumber: number, limits: AnalysisLimits, targetWidth: number, prescaleImages: boolean): Promise<PageImage> {
  const { createCanvas } = await import("@napi-rs/canvas");
  const page = await document.getPage(pageNumber);
  try {
    const pageViewport = page.getViewport({ scale: 1 });
    const size = renderSize(pageViewport.width, pageViewport.height, targetWidth, limits.maxPixels);
    const canvas = createCanvas(size.width, size.height);
    const viewport = page.getViewport({ scale: size.scale });
    try {
      if (prescaleImages) await prescaleLargeImages(await loadPdfJs(), page, canvas, viewport, limits.maxPixels);
      // @napi-rs/canvas implements the parts of HTMLCanvasElement that pdf.js uses.
      await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport }).promise;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw failure("pdf_rendering", "corrupt", `page ${pageNumber} cannot be rendered: ${reason}`);
    }
    return { bytes: await canvas.encode("jpeg", JPEG_QUALITY), mediaType: PAGE_MEDIA_TYPE };
  } finally {
    page.cleanup();
  }
}
