/**
 * One page of a PDF as an image: the embedded JPEG of an image-only page when there is one,
 * otherwise a pdf.js rendering.
 */
import { BookAnalysisError, type PageImage, type PluginContext, type ReadPageOptions } from "../../src/formats/contract.ts";
import { PAGE_MEDIA_TYPE } from "./analyze.ts";
import { embeddedJpegPage, type EmbeddedJpeg } from "./embedded-jpeg-page.ts";
import { DEFAULT_RENDER_WIDTH, renderPage } from "./page-render.ts";
import { withPdfDocument } from "./pdfjs-runtime.ts";

const JPEG_QUALITY = 90;

export async function readPdfPage(
  path: string,
  pageNumber: number,
  ctx: PluginContext,
  options: ReadPageOptions = {},
): Promise<PageImage> {
  ctx.signal.throwIfAborted();
  const jpeg = await embeddedJpegPage(path, pageNumber, ctx.limits.maxPixels);
  if (jpeg) return fitEmbeddedJpeg(jpeg, options.maxWidth);
  return withPdfDocument(path, ctx, (document) => {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > document.numPages) {
      throw new BookAnalysisError("page_extraction", `page ${pageNumber} does not exist: the PDF has ${document.numPages} pages`);
    }
    return renderPage(document, pageNumber, ctx, options.maxWidth ?? DEFAULT_RENDER_WIDTH);
  });
}

/**
 * The stored JPEG as it is, unless it is wider than asked, or carries an EXIF orientation:
 * PDF viewers ignore EXIF, browsers apply it, so such a JPEG is re-encoded without it to look
 * as it does in the PDF.
 */
async function fitEmbeddedJpeg(jpeg: EmbeddedJpeg, maxWidth: number | undefined): Promise<PageImage> {
  const { default: sharp } = await import("sharp");
  const { orientation } = await sharp(jpeg.bytes).metadata();
  const tooWide = maxWidth !== undefined && jpeg.width > maxWidth;
  if (!tooWide && (orientation ?? 1) === 1) return { bytes: jpeg.bytes, mediaType: PAGE_MEDIA_TYPE };
  let image = sharp(jpeg.bytes);
  if (tooWide) image = image.resize({ width: maxWidth });
  return { bytes: await image.jpeg({ quality: JPEG_QUALITY }).toBuffer(), mediaType: PAGE_MEDIA_TYPE };
}
