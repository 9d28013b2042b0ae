/**
 * Large images scaled down with sharp before pdf.js draws them (issue 31). A scanned page is
 * typically one 300 dpi image (2480x3506 for A4) drawn on a canvas of 800-1600 px: pdf.js
 * converts it to RGBA on a canvas of its full size (35 MB), halves it with drawImage until it
 * is less than twice the size on the page, then draws it scaled, which took most of a render
 * (0.45-1 s for the JBIG2 scan the reader benchmark uses). sharp does the same scaling from
 * the decoded pixels in a fraction of that.
 *
 * pdf.js still places and draws the image and everything around it (text, annotations,
 * transfer functions, blending): only the decoded image pdf.js hands its canvas code is
 * swapped for a copy already at the size it is drawn at, in the form pdf.js uses when its
 * worker decodes images to bitmaps ({ bitmap, width, height }). The page's operator list and
 * decoded images are loaded by a first render call that draws nothing, so the second, real
 * render reuses them.
 *
 * Only opaque images pdf.js decoded to 1-bit grey or 8-bit RGB (JBIG2, CCITT, Flate, JPEG...)
 * drawn once and larger than on the page are replaced; image masks, images with an alpha
 * channel (soft masks), images drawn several times, enlarged, or inside forms, patterns or
 * annotations keep pdf.js's own path.
 */
import { multiply, type Matrix } from "./matrix.ts";
import type { PdfJsModule, PdfPage, PdfViewport } from "./pdfjs-runtime.ts";

interface OperatorList {
  fnArray: number[];
  argsArray: unknown[][];
}

/** A decoded image as pdf.js's worker sends it (kind: pdf.js ImageKind). */
interface DecodedImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
  bitmap?: unknown;
}

/**
 * Loads `page`'s operator list and images by rendering it onto `canvas` with every drawing
 * operator filtered out, then replaces each large image pdf.js will draw (see above) by a
 * copy scaled to its size on the canvas. Call right before rendering `page` with the same
 * viewport and the default intent; the render draws the page as it would have, from the
 * smaller images.
 */
export async function prescaleLargeImages(pdfjs: PdfJsModule, page: PdfPage, canvas: object, viewport: PdfViewport, maxPixels: number): Promise<void> {
  let operatorList: OperatorList | undefined;
  await page.render({
    canvas: canvas as unknown as HTMLCanvasElement,
    viewport,
    // Dependencies make the render wait for the images and fonts it needs; nothing is drawn.
    operationsFilter: (index: number, list: OperatorList) => {
      operatorList = list;
      return list.fnArray[index] === pdfjs.OPS.dependency;
    },
  } as Parameters<PdfPage["render"]>[0]).promise;
  if (!operatorList) return;
  for (const { objectId, matrix } of imagesDrawnOnce(pdfjs, operatorList)) {
    // Images shared between pages ("g_") too: a document is opened for one render
    // (withPdfDocument), so no other page draws the smaller copy.
    const store = objectId.startsWith("g_") ? page.commonObjs : page.objs;
    if (!store.has(objectId)) continue;
    const image = store.get(objectId) as DecodedImage | null;
    if (!image) continue;
    const device = multiply(matrix, viewport.transform as Matrix);
    // An image sharp cannot scale stays as pdf.js decoded it, and pdf.js draws it its own way.
    await prescale(pdfjs, image, Math.hypot(device[0], device[1]), Math.hypot(device[2], device[3]), maxPixels).catch(() => undefined);
  }
}

/**
 * The images painted by exactly one paintImageXObject in the page's own content, with the
 * transformation in force then (the unit square is the image), which sets the size it is
 * scaled to; where and how it is drawn (clips included) stays pdf.js's business. Tracking
 * stops at the first operator that changes the transformation in a way not followed here
 * (forms, groups, annotations): images after it keep pdf.js's path.
 */
function imagesDrawnOnce(pdfjs: PdfJsModule, list: OperatorList): { objectId: string; matrix: Matrix }[] {
  const { OPS } = pdfjs;
  const uses = new Map<string, number>();
  const found: { objectId: string; matrix: Matrix }[] = [];
  const stack: Matrix[] = [];
  let matrix: Matrix = [1, 0, 0, 1, 0, 0];
  let tracking = true;
  list.fnArray.forEach((op, index) => {
    const args = list.argsArray[index];
    if (op === OPS.paintImageXObject || op === OPS.paintImageXObjectRepeat) {
      const objectId = String(args?.[0]);
      uses.set(objectId, (uses.get(objectId) ?? 0) + 1);
      if (tracking && op === OPS.paintImageXObject) found.push({ objectId, matrix });
    } else if (op === OPS.save) {
      stack.push(matrix);
    } else if (op === OPS.restore) {
      matrix = stack.pop() ?? matrix;
    } else if (op === OPS.transform) {
      matrix = multiply(args as unknown as Matrix, matrix);
    } else if (op === OPS.paintFormXObjectBegin || op === OPS.beginGroup || op === OPS.beginAnnotation) {
      tracking = false;
    }
  });
  return found.filter(({ objectId }) => uses.get(objectId) === 1);
}

async function prescale(pdfjs: PdfJsModule, image: DecodedImage, shownWidth: number, shownHeight: number, maxPixels: number): Promise<void> {
  const { width, height, kind, data } = image;
  if (image.bitmap || !data) return;
  const targetWidth = Math.max(1, Math.ceil(shownWidth));
  const targetHeight = Math.max(1, Math.ceil(shownHeight));
  // Enlarging is left to pdf.js: it costs no more there than the image's own size.
  if (width <= targetWidth || height <= targetHeight) return;
  if (targetWidth * targetHeight > maxPixels || width * height > maxPixels) return;
  let channels: 1 | 3;
  let pixels: Uint8Array;
  if (kind === pdfjs.ImageKind.GRAYSCALE_1BPP) {
    channels = 1;
    pixels = unpackBits(data, width, height);
  } else if (kind === pdfjs.ImageKind.RGB_24BPP && data.length === width * height * 3) {
    channels = 3;
    pixels = data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.length);
  } else {
    return;
  }
  const [{ default: sharp }, { createCanvas, ImageData }] = await Promise.all([import("sharp"), import("@napi-rs/canvas")]);
  const rgba = await sharp(pixels, { raw: { width, height, channels }, limitInputPixels: maxPixels })
    .resize(targetWidth, targetHeight, { fit: "fill" })
    .ensureAlpha(1)
    .raw()
    .toBuffer();
  const bitmap = createCanvas(targetWidth, targetHeight);
  bitmap.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), targetWidth, targetHeight), 0, 0);
  // pdf.js draws the bitmap over the image's unit square, scaled by 1/width and 1/height: they
  // must be the bitmap's own, or pdf.js takes it for the full image and halves it again. It
  // closes bitmaps as it lets go of its images, as an ImageBitmap would be; a canvas is left
  // to the collector.
  image.bitmap = Object.assign(bitmap, { close() {} });
  image.width = targetWidth;
  image.height = targetHeight;
  image.data = undefined;
}

/**
 * pdf.js's 1-bit grey (rows padded to whole bytes, 1 = white, as its canvas code reads them;
 * bytes missing at the end read as white) as 8-bit grey.
 */
function unpackBits(data: Uint8Array | Uint8ClampedArray, width: number, height: number): Uint8Array {
  const rowBytes = (width + 7) >> 3;
  const grey = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * rowBytes;
    const out = y * width;
    for (let x = 0; x < width; x++) {
      const byte = row + (x >> 3) < data.length ? data[row + (x >> 3)]! : 0xff;
      grey[out + x] = (byte >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
  }
  return grey;
}
