/**
 * Decoding page images with sharp, always under the pixel limit: `limitInputPixels` makes
 * sharp refuse a 40000 x 40000 page from its header instead of allocating gigabytes for it.
 * Every decode also waits for its share of the process's decode budget (decode-budget.ts),
 * sized from the image's header before any pixel is decoded. JPEG XL, which sharp's libvips
 * does not read, is decoded by ./jxl.ts (inside the budget, after the same header checks) and
 * handed to sharp as pixels.
 */
import sharp, { type Sharp } from "sharp";
import { decodeBudget, decodeCost } from "./decode-budget.ts";
import { BookAnalysisError, type PageImage, type ThumbnailOptions } from "./contract.ts";
import { failure } from "./errors.ts";
import { readImageSize, sniffImageMediaType } from "./images.ts";
import { decodeJxl, JXL_MEDIA_TYPE } from "./jxl.ts";

/** What a decode needs to know before it starts, from the image's header. */
interface ImageHeader {
  /** 0 when the header does not say. */
  width: number;
  height: number;
  /** sharp's name for the format (jpeg, png, webp...), when known. */
  format?: string;
}

/**
 * Reads the header of `bytes` once, for the decode that follows. The header parsers of
 * images.ts read the usual formats in this thread; sharp's metadata() (a trip through libuv's
 * thread pool) only reads the others.
 */
async function readHeader(bytes: Uint8Array): Promise<ImageHeader> {
  const size = readImageSize(bytes);
  if (size) return { ...size, format: sniffImageMediaType(bytes)?.slice("image/".length) };
  const { width = 0, height = 0, format } = await sharp(bytes, { failOn: "none" }).metadata();
  return { width, height, format };
}

/** A sharp pipeline over the image (a JPEG XL one decoded first, see ./jxl.ts): call it within the budget. */
async function open(bytes: Uint8Array, maxPixels: number): Promise<Sharp> {
  if (sniffImageMediaType(bytes) !== JXL_MEDIA_TYPE) return sharp(bytes, { limitInputPixels: maxPixels, failOn: "none" });
  const { data, width, height } = await decodeJxl(bytes);
  return sharp(data, { raw: { width, height, channels: 4 }, limitInputPixels: maxPixels });
}

/**
 * Runs a sharp decode of `byteLength` bytes within the decode budget, costed from the image's
 * header. Sharp decodes the first frame of an animation only, so one frame is what the decode costs.
 */
async function withinBudget<T>(header: ImageHeader, byteLength: number, maxPixels: number, work: () => Promise<T>): Promise<T> {
  const pixels = header.width * header.height;
  // Refused as sharp's limitInputPixels would refuse it, before the budget is asked for a decode that will not run.
  if (pixels > maxPixels) throw new PixelLimitExceeded();
  return decodeBudget.run(decodeCost(byteLength, pixels), work);
}

class PixelLimitExceeded extends Error {}

/**
 * Thumbnail encoders. WebP at effort 2 (sharp's default is 4) spends about a third less time
 * encoding for files 1-3% larger; JPEG uses libjpeg-turbo with optimised Huffman tables rather
 * than mozjpeg, whose trellis quantisation costs 2-6 times as long for files 8-16% smaller.
 * Measured on comic pages, see docs/benchmarks.md "Scanning".
 */
const THUMBNAIL_WEBP = { quality: 80, effort: 2 } as const;
const THUMBNAIL_JPEG = { quality: 85, optimiseCoding: true, mozjpeg: false } as const;

/** A thumbnail `height` pixels high (never enlarged), as WebP or JPEG. */
export async function makeThumbnail(image: Uint8Array, options: ThumbnailOptions, maxPixels: number): Promise<Uint8Array> {
  try {
    return await withinBudget(await readHeader(image), image.length, maxPixels, async () => {
      // A JPEG is shrunk by libjpeg while it decodes (shrink-on-load), so a 3000-pixel page is
      // never decoded at full size for a 400-pixel thumbnail.
      const scaled = (await open(image, maxPixels))
        .rotate() // honour EXIF orientation
        .resize({ height: options.height, withoutEnlargement: true });
      const encoded = options.format === "webp" ? scaled.webp(THUMBNAIL_WEBP) : scaled.jpeg(THUMBNAIL_JPEG);
      return new Uint8Array(await encoded.toBuffer());
    });
  } catch (error) {
    throw decodeFailure("thumbnail", error, maxPixels);
  }
}

/** The page scaled down to at most `maxWidth` pixels wide, keeping its format when sharp can write it. */
export async function scaleToWidth(page: PageImage, maxWidth: number, maxPixels: number): Promise<PageImage> {
  try {
    const header = await readHeader(page.bytes);
    const { width, format } = header;
    if (width > 0 && width <= maxWidth) return page;
    return await withinBudget(header, page.bytes.length, maxPixels, async () => {
      const resized = (await open(page.bytes, maxPixels)).rotate().resize({ width: maxWidth, withoutEnlargement: true });
      const keepsFormat = format === "png" || format === "webp" || format === "jpeg";
      const output = keepsFormat ? resized.toFormat(format) : resized.jpeg({ quality: 85 });
      return { bytes: new Uint8Array(await output.toBuffer()), mediaType: keepsFormat ? `image/${format}` : "image/jpeg" };
    });
  } catch (error) {
    throw decodeFailure("page_extraction", error, maxPixels);
  }
}

/** The page re-encoded as JPEG or PNG, for clients that accept only a few image types. */
export async function reencode(page: PageImage, format: "jpeg" | "png", maxPixels: number): Promise<PageImage> {
  try {
    return await withinBudget(await readHeader(page.bytes), page.bytes.length, maxPixels, async () => {
      const rotated = (await open(page.bytes, maxPixels)).rotate();
      const encoded = format === "jpeg" ? rotated.jpeg({ quality: 85 }) : rotated.png();
      return { bytes: new Uint8Array(await encoded.toBuffer()), mediaType: `image/${format}` };
    });
  } catch (error) {
    throw decodeFailure("page_extraction", error, maxPixels);
  }
}

function decodeFailure(type: "thumbnail" | "page_extraction", error: unknown, maxPixels: number) {
  if (error instanceof BookAnalysisError) return error; // the decode budget's refusal
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof PixelLimitExceeded || /pixel limit/i.test(message)) {
    return failure(type, "limit_exceeded", `The image is larger than the limit of ${maxPixels} pixels and was not decoded`, {
      limit: maxPixels,
    });
  }
  return failure(type, "corrupt", `The image cannot be decoded: ${message}`);
}
