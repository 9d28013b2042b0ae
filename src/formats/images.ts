/**
 * Page images: which entry names are pages, their media types, and their pixel size read from
 * the first bytes of the file (no decode). Covers JPEG (SOF markers), PNG (IHDR), GIF, WebP
 * (VP8, VP8L, VP8X), BMP, AVIF (ispe box) and JPEG XL (SizeHeader, bare or in its container);
 * sharp reads the header of anything else.
 */
import sharp from "sharp";

export interface ImageSize {
  width: number;
  height: number;
}

/** Extensions (lower case, no dot) of the files counted as pages, with their media types. */
export const PAGE_IMAGE_TYPES: Readonly<Record<string, string>> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
  bmp: "image/bmp",
  jxl: "image/jxl",
};

/** Enough for the header of nearly every image; JPEGs with a large EXIF block need the second try. */
export const IMAGE_HEADER_PROBE_BYTES = [8 * 1024, 256 * 1024] as const;

export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

export function pageMediaTypeForName(name: string): string | undefined {
  return PAGE_IMAGE_TYPES[extensionOf(name)];
}

/** The image types whose first bytes sniffImageMediaType knows. */
export const SNIFFED_IMAGE_TYPES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/avif", "image/jxl"]);

/** The media type the bytes themselves announce, when they are a known image (one of SNIFFED_IMAGE_TYPES). */
export function sniffImageMediaType(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (ascii(bytes, 0, 4) === "GIF8") return "image/gif";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp";
  if (ascii(bytes, 0, 2) === "BM") return "image/bmp";
  if (ascii(bytes, 4, 8) === "ftyp" && ["avif", "avis"].includes(ascii(bytes, 8, 12))) return "image/avif";
  if ((bytes[0] === 0xff && bytes[1] === 0x0a) || startsWith(bytes, JXL_CONTAINER)) return "image/jxl";
  return undefined;
}

/** Width and height from the image header, or null when the bytes do not say (or are too short). */
export function readImageSize(bytes: Uint8Array): ImageSize | null {
  switch (sniffImageMediaType(bytes)) {
    case "image/jpeg":
      return jpegSize(bytes);
    case "image/png":
      return bytes.length >= 24 ? positive(u32be(bytes, 16), u32be(bytes, 20)) : null;
    case "image/gif":
      return bytes.length >= 10 ? positive(u16le(bytes, 6), u16le(bytes, 8)) : null;
    case "image/webp":
      return webpSize(bytes);
    case "image/bmp":
      return bmpSize(bytes);
    case "image/avif":
      return avifSize(bytes);
    case "image/jxl":
      return jxlSize(bytes);
    default:
      return null;
  }
}

/**
 * Pixel size from the first bytes of an image, asking `readHead` for more only when needed;
 * sharp reads the header of formats the parsers above do not know. Null when nobody can tell.
 */
export async function probeImageSize(readHead: (byteCount: number) => Promise<Uint8Array>): Promise<ImageSize | null> {
  let head: Uint8Array = new Uint8Array(0);
  for (const byteCount of IMAGE_HEADER_PROBE_BYTES) {
    head = await readHead(byteCount);
    const size = readImageSize(head);
    if (size) return size;
    if (head.length < byteCount) break; // the whole image was read: more bytes will not help
  }
  if (head.length === 0) return null;
  try {
    // metadata() parses the header only; it does not decode pixels.
    const { width, height } = await sharp(head, { failOn: "none" }).metadata();
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}

function jpegSize(bytes: Uint8Array): ImageSize | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Standalone markers carry no length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan before any SOF
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isStartOfFrame) return positive(u16be(bytes, at + 7), u16be(bytes, at + 5));
    at += 2 + u16be(bytes, at + 2);
  }
  return null;
}

function webpSize(bytes: Uint8Array): ImageSize | null {
  if (bytes.length < 30) return null;
  switch (ascii(bytes, 12, 16)) {
    case "VP8 ":
      return positive(u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff);
    case "VP8L": {
      const bits = u32le(bytes, 21);
      return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    case "VP8X":
      return positive(u24le(bytes, 24) + 1, u24le(bytes, 27) + 1);
    default:
      return null;
  }
}

function bmpSize(bytes: Uint8Array): ImageSize | null {
  if (bytes.length < 26) return null;
  const dibHeaderSize = u32le(bytes, 14);
  if (dibHeaderSize === 12) return positive(u16le(bytes, 18), u16le(bytes, 20));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Height is negative for top-down bitmaps.
  return positive(Math.abs(view.getInt32(18, true)), Math.abs(view.getInt32(22, true)));
}

/** The first `ispe` (image spatial extents) property box: the primary image's size in practice. */
function avifSize(bytes: Uint8Array): ImageSize | null {
  for (let at = 4; at + 16 <= bytes.length; at++) {
    if (bytes[at] === 0x69 && ascii(bytes, at, at + 4) === "ispe") return positive(u32be(bytes, at + 8), u32be(bytes, at + 12));
  }
  return null;
}

/** The signature box of a JPEG XL file in the ISO BMFF container (a bare codestream starts FF 0A). */
const JXL_CONTAINER = [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a] as const;

/**
 * A JPEG XL image's size from its codestream's SizeHeader (ISO/IEC 18181-1): in a container,
 * the codestream of the first `jxlc` box, or of the first `jxlp` box after its 4-byte index.
 */
function jxlSize(bytes: Uint8Array): ImageSize | null {
  if (bytes[0] === 0xff && bytes[1] === 0x0a) return jxlCodestreamSize(bytes.subarray(2));
  let at = 0;
  while (at + 8 <= bytes.length) {
    let size = u32be(bytes, at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > bytes.length) return null;
      size = u32be(bytes, at + 8) * 2 ** 32 + u32be(bytes, at + 12);
      header = 16;
    }
    const type = ascii(bytes, at + 4, at + 8);
    if (type === "jxlc" || type === "jxlp") {
      const start = at + header + (type === "jxlp" ? 4 : 0);
      return bytes[start] === 0xff && bytes[start + 1] === 0x0a ? jxlCodestreamSize(bytes.subarray(start + 2)) : null;
    }
    if (size === 0 || size < header) return null; // "to the end of the file", or malformed
    at += size;
  }
  return null;
}

/** Width to height ratios of SizeHeader's `ratio` field (1..7). */
const JXL_RATIOS: readonly (readonly [number, number])[] = [[1, 1], [12, 10], [4, 3], [3, 2], [16, 9], [5, 4], [2, 1]];

/** SizeHeader, right after the FF 0A signature: fields packed least significant bit first. */
function jxlCodestreamSize(bytes: Uint8Array): ImageSize | null {
  let bit = 0;
  const read = (count: number): number | null => {
    if (bit + count > bytes.length * 8) return null;
    let value = 0;
    for (let index = 0; index < count; index++, bit++) value += ((byte(bytes, bit >> 3) >> (bit & 7)) & 1) * 2 ** index;
    return value;
  };
  const dimension = (small: boolean): number | null => {
    if (small) {
      const eighths = read(5);
      return eighths === null ? null : (eighths + 1) * 8;
    }
    const selector = read(2);
    const value = selector === null ? null : read([9, 13, 18, 30][selector]!);
    return value === null ? null : value + 1;
  };
  const small = read(1);
  if (small === null) return null;
  const height = dimension(small === 1);
  const ratio = read(3);
  if (height === null || ratio === null) return null;
  if (ratio > 0) {
    const [numerator, denominator] = JXL_RATIOS[ratio - 1]!;
    return positive(Math.floor((height * numerator) / denominator), height);
  }
  const width = dimension(small === 1);
  return width === null ? null : positive(width, height);
}

function positive(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return end <= bytes.length ? String.fromCharCode(...bytes.subarray(start, end)) : "";
}

const byte = (bytes: Uint8Array, at: number): number => bytes[at] ?? 0;
const u16be = (b: Uint8Array, at: number): number => (byte(b, at) << 8) | byte(b, at + 1);
const u16le = (b: Uint8Array, at: number): number => byte(b, at) | (byte(b, at + 1) << 8);
const u24le = (b: Uint8Array, at: number): number => byte(b, at) | (byte(b, at + 1) << 8) | (byte(b, at + 2) << 16);
const u32be = (b: Uint8Array, at: number): number => ((byte(b, at) << 24) | (byte(b, at + 1) << 16) | u16be(b, at + 2)) >>> 0;
const u32le = (b: Uint8Array, at: number): number => (u24le(b, at) | (byte(b, at + 3) << 24)) >>> 0;
