/**
 * One page of a PDF as an image: the embedded JPEG of an image-only page when there is one
 * (cheap: read in the server thread), otherwise a pdf.js rendering in a PDF worker.
 */
import type { PageImage, PluginContext, ReadPageOptions } from "../../src/formats/contract.ts";
import { embeddedJpegPage, type EmbeddedJpeg } from "./embedded-jpeg-page.ts";
import { JPEG_QUALITY, PAGE_MEDIA_TYPE } from "./page-format.ts";
import { pdfWorkers } from "./worker-pool.ts";

export async function readPdfPage(
  path: string,
  pageNumber: number,
  ctx: PluginContext,
  options: ReadPageOptions = {},
): Promise<PageImage> {
  ctx.signal.throwIfAborted();
  const jpeg = await embeddedJpegPage(path, pageNumber, ctx.limits.maxPixels);
  if (jpeg) {
    const fitted = await fitEmbeddedJpeg(jpeg, options.maxWidth, ctx.limits.maxPixels);
    if (fitted) return fitted;
  }
  return pdfWorkers.run({ kind: "render", path, pageNumber, maxWidth: options.maxWidth, limits: ctx.limits }, ctx.signal);
}

/**
 * The stored JPEG as it is, unless it is wider than asked, or carries an EXIF orientation:
 * PDF viewers ignore EXIF, browsers apply it, so such a JPEG is re-encoded without it to look
 * as it does in the PDF.
 */
async function fitEmbeddedJpeg(jpeg: EmbeddedJpeg, maxWidth: number | undefined, maxPixels: number): Promise<PageImage | null> {
  const { default: sharp } = await import("sharp");
  const { orientation, width, height } = await sharp(jpeg.bytes).metadata();
  // The PDF's declared size is only a claim: a JPEG whose own header says otherwise (or that is
  // too large to decode) is left to the renderer, which honours the pixel limit.
  if (width !== jpeg.width || height !== jpeg.height || width * height > maxPixels) return null;
  const tooWide = maxWidth !== undefined && jpeg.width > maxWidth;
  if (!tooWide && (orientation ?? 1) === 1) return { bytes: jpeg.bytes, mediaType: PAGE_MEDIA_TYPE };
  let image = sharp(jpeg.bytes, { limitInputPixels: maxPixels });
  if (tooWide) image = image.resize({ width: maxWidth });
  return { bytes: await image.jpeg({ quality: JPEG_QUALITY }).toBuffer(), mediaType: PAGE_MEDIA_TYPE };
}
