/**
 * Decoding page images with sharp, always under the pixel limit: `limitInputPixels` makes
 * sharp refuse a 40000 x 40000 page from its header instead of allocating gigabytes for it.
 */
import sharp from "sharp";
import type { PageImage, ThumbnailOptions } from "./contract.ts";
import { failure } from "./errors.ts";

/** A thumbnail `height` pixels high (never enlarged), as WebP or JPEG. */
export async function makeThumbnail(image: Uint8Array, options: ThumbnailOptions, maxPixels: number): Promise<Uint8Array> {
  try {
    const pipeline = sharp(image, { limitInputPixels: maxPixels, failOn: "none" })
      .rotate() // honour EXIF orientation
      .resize({ height: options.height, withoutEnlargement: true });
    const encoded = options.format === "webp" ? pipeline.webp({ quality: 80 }) : pipeline.jpeg({ quality: 85, mozjpeg: true });
    return new Uint8Array(await encoded.toBuffer());
  } catch (error) {
    throw decodeFailure("thumbnail", error, maxPixels);
  }
}

/** The page scaled down to at most `maxWidth` pixels wide, keeping its format when sharp can write it. */
export async function scaleToWidth(page: PageImage, maxWidth: number, maxPixels: number): Promise<PageImage> {
  try {
    const image = sharp(page.bytes, { limitInputPixels: maxPixels, failOn: "none" });
    const { width, format } = await image.metadata();
    if (width !== undefined && width <= maxWidth) return page;
    const resized = image.rotate().resize({ width: maxWidth, withoutEnlargement: true });
    const keepsFormat = format === "png" || format === "webp" || format === "jpeg";
    const output = keepsFormat ? resized.toFormat(format) : resized.jpeg({ quality: 85 });
    return { bytes: new Uint8Array(await output.toBuffer()), mediaType: keepsFormat ? `image/${format}` : "image/jpeg" };
  } catch (error) {
    throw decodeFailure("page_extraction", error, maxPixels);
  }
}

/** The page re-encoded as JPEG or PNG, for clients that accept only a few image types. */
export async function reencode(page: PageImage, format: "jpeg" | "png", maxPixels: number): Promise<PageImage> {
  try {
    const decoded = sharp(page.bytes, { limitInputPixels: maxPixels, failOn: "none" }).rotate();
    const image = format === "jpeg" ? decoded.jpeg({ quality: 85 }) : decoded.png();
    return { bytes: new Uint8Array(await image.toBuffer()), mediaType: `image/${format}` };
  } catch (error) {
    throw decodeFailure("page_extraction", error, maxPixels);
  }
}

function decodeFailure(type: "thumbnail" | "page_extraction", error: unknown, maxPixels: number) {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) {
    return failure(type, "limit_exceeded", `The image is larger than the limit of ${maxPixels} pixels and was not decoded`, {
      limit: maxPixels,
    });
  }
  return failure(type, "corrupt", `The image cannot be decoded: ${message}`);
}
