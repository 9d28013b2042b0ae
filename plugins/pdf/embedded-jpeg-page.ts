/**
 * The fast path for image-only PDFs (scanned comics): when a page shows exactly one JPEG
 * image covering the whole page and nothing else, that JPEG is the page, and its bytes can be
 * handed out as they are stored. pdf.js would decode the JPEG in JavaScript and re-encode a
 * rendering (about 7 pages/s for a 1654x2338 scan); this costs a few small file reads.
 *
 * Anything this module does not recognise for certain (other drawing operators, masks,
 * transparency, rotation, CMYK, filters other than DCTDecode alone, encryption, a damaged
 * file) yields null, and the caller renders the page with pdf.js instead.
 */
import { multiply, type Matrix } from "./matrix.ts";
import { PdfFile, isStream, type PdfStream } from "./pdf-file.ts";
import { PdfKeyword, PdfLexer, PdfName, isNamed, type PdfDict, type PdfValue } from "./pdf-syntax.ts";

export interface EmbeddedJpeg {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/** Content streams of image-only pages are a few dozen bytes; longer ones draw more. */
const MAX_CONTENT_BYTES = 64 * 1024;
const MAX_PAGE_TREE_DEPTH = 64;
/** How far (as a share of the page size) the image may miss or overhang a page edge. */
const EDGE_TOLERANCE = 0.01;

/** Operators that change no pixel on their own: colour, line style and marked-content state. */
const STATE_OPERATORS = new Set([
  "w", "J", "j", "M", "d", "ri", "i",
  "g", "G", "rg", "RG", "k", "K", "cs", "CS", "sc", "SC", "scn", "SCN",
  "BMC", "BDC", "EMC", "MP", "DP", "BX", "EX",
]);

/** The JPEG that is page `pageNumber` (1-based) of the PDF at `path`, or null when there is none. */
export async function embeddedJpegPage(path: string, pageNumber: number, maxPixels: number): Promise<EmbeddedJpeg | null> {
  try {
    return await PdfFile.with(path, async (file) => {
      if (file.trailer.has("Encrypt")) return null;
      const page = await findPage(file, pageNumber);
      if (!page) return null;
      const placement = await singleImagePlacement(file, page);
      if (!placement || !coversPage(placement.matrix, page.box)) return null;
      const jpeg = await readJpeg(file, placement.image, maxPixels);
      return jpeg && keepsAspectRatio(jpeg, placement.matrix) ? jpeg : null;
    });
  } catch {
    // Damaged or unusual structure: not for the fast path; pdf.js will cope or report it.
    return null;
  }
}

interface PageObject {
  dict: PdfDict;
  /** Inheritable attributes, resolved along the page tree. */
  resources: PdfDict;
  box: [number, number, number, number];
}

async function findPage(file: PdfFile, pageNumber: number): Promise<PageObject | null> {
  const catalog = await file.resolveDict(file.trailer.get("Root"));
  let node = await file.resolveDict(catalog?.get("Pages"));
  let remaining = pageNumber - 1;
  const inherited = new Map<string, PdfValue>();
  for (let depth = 0; node && depth < MAX_PAGE_TREE_DEPTH; depth++) {
    for (const key of ["Resources", "MediaBox", "CropBox", "Rotate"]) {
      const value = node.get(key);
      if (value !== undefined) inherited.set(key, value);
    }
    const kids = await file.resolve(node.get("Kids"));
    if (!Array.isArray(kids)) {
      return remaining === 0 ? pageObject(file, node, inherited) : null;
    }
    let next: PdfDict | undefined;
    for (const kid of kids) {
      const kidDict = await file.resolveDict(kid);
      if (!kidDict) return null;
      const isTree = kidDict.has("Kids");
      const count = isTree ? await file.resolve(kidDict.get("Count")) : 1;
      if (typeof count !== "number" || !Number.isInteger(count) || count < 0) return null;
      if (remaining < count) {
        next = kidDict;
        break;
      }
      remaining -= count;
    }
    node = next;
  }
  return null;
}

async function pageObject(file: PdfFile, dict: PdfDict, inherited: Map<string, PdfValue>): Promise<PageObject | null> {
  const rotate = await file.resolve(inherited.get("Rotate"));
  if (rotate !== undefined && rotate !== null && (typeof rotate !== "number" || rotate % 360 !== 0)) return null;
  const resources = await file.resolveDict(inherited.get("Resources"));
  const mediaBox = await rectangle(file, inherited.get("MediaBox"));
  const cropBox = await rectangle(file, inherited.get("CropBox"));
  const box = cropBox && mediaBox ? intersect(cropBox, mediaBox) : mediaBox;
  return resources && box ? { dict, resources, box } : null;
}

async function rectangle(file: PdfFile, value: PdfValue | undefined): Promise<[number, number, number, number] | undefined> {
  const array = await file.resolve(value);
  if (!Array.isArray(array) || array.length !== 4) return undefined;
  const numbers = await Promise.all(array.map((item) => file.resolve(item)));
  if (!numbers.every((n): n is number => typeof n === "number")) return undefined;
  const [x1, y1, x2, y2] = numbers as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

function intersect(a: [number, number, number, number], b: [number, number, number, number]): [number, number, number, number] | undefined {
  const box: [number, number, number, number] = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return box[2] > box[0] && box[3] > box[1] ? box : undefined;
}

/**
 * Runs the page's content stream and returns the one image XObject it paints and the
 * transformation in force then, if painting that image is all the page does.
 */
async function singleImagePlacement(file: PdfFile, page: PageObject): Promise<{ image: PdfStream; matrix: Matrix } | null> {
  const content = await contentBytes(file, page.dict.get("Contents"));
  if (!content) return null;
  const xobjects = await file.resolveDict(page.resources.get("XObject"));
  const lexer = new PdfLexer(content, 0, true);
  const stack: Matrix[] = [];
  let matrix: Matrix = [1, 0, 0, 1, 0, 0];
  let operands: PdfValue[] = [];
  let placement: { image: PdfStream; matrix: Matrix } | null = null;
  for (let token = lexer.next(); token !== undefined; token = lexer.next()) {
    if (!(token instanceof PdfKeyword)) {
      operands.push(token);
      continue;
    }
    const operator = token.word;
    if (operator === "q") {
      stack.push(matrix);
    } else if (operator === "Q") {
      matrix = stack.pop() ?? matrix;
    } else if (operator === "cm") {
      if (operands.length !== 6 || !operands.every((n) => typeof n === "number")) return null;
      matrix = multiply(operands as Matrix, matrix);
    } else if (operator === "Do") {
      const name = operands[0];
      if (placement || !(name instanceof PdfName) || !xobjects) return null;
      const image = await file.resolve(xobjects.get(name.name));
      if (!isStream(image) || !isNamed(image.dict.get("Subtype"), "Image")) return null;
      placement = { image, matrix };
    } else if (!STATE_OPERATORS.has(operator)) {
      return null;
    }
    operands = [];
  }
  return placement;
}

async function contentBytes(file: PdfFile, contents: PdfValue | undefined): Promise<Uint8Array | null> {
  const resolved = await file.resolve(contents);
  const parts = Array.isArray(resolved) ? resolved : [contents];
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    const stream = await file.resolve(part);
    if (!isStream(stream)) return null;
    chunks.push(await file.decodedStreamData(stream, MAX_CONTENT_BYTES), new Uint8Array([0x0a]));
  }
  return chunks.length ? Buffer.concat(chunks) : null;
}

/** The image (the unit square under `matrix`) is upright, unflipped and fills the page box. */
function coversPage(matrix: Matrix, box: [number, number, number, number]): boolean {
  const [a, b, c, d, e, f] = matrix;
  const width = box[2] - box[0];
  const height = box[3] - box[1];
  const near = (value: number, target: number, size: number) => Math.abs(value - target) <= size * EDGE_TOLERANCE;
  return (
    a > 0 &&
    d > 0 &&
    Math.abs(b) <= a * 1e-6 &&
    Math.abs(c) <= d * 1e-6 &&
    near(e, box[0], width) &&
    near(e + a, box[2], width) &&
    near(f, box[1], height) &&
    near(f + d, box[3], height)
  );
}

/** The page shows the image unstretched (within the edge tolerance), as the JPEG would look alone. */
function keepsAspectRatio(jpeg: EmbeddedJpeg, matrix: Matrix): boolean {
  const shown = matrix[0] / matrix[3];
  const stored = jpeg.width / jpeg.height;
  return Math.abs(shown / stored - 1) <= 2 * EDGE_TOLERANCE;
}

/** The stored bytes of an image XObject that is a plain baseline/progressive JPEG, else null. */
async function readJpeg(file: PdfFile, image: PdfStream, maxPixels: number): Promise<EmbeddedJpeg | null> {
  const { dict } = image;
  const width = await file.resolve(dict.get("Width"));
  const height = await file.resolve(dict.get("Height"));
  const filter = await file.resolve(dict.get("Filter"));
  const filters = Array.isArray(filter) ? filter : [filter];
  if (
    typeof width !== "number" ||
    typeof height !== "number" ||
    !(width >= 1 && height >= 1 && width * height <= maxPixels) ||
    filters.length !== 1 ||
    !isNamed(filters[0], "DCTDecode") ||
    (await file.resolve(dict.get("BitsPerComponent"))) !== 8 ||
    ["SMask", "Mask", "Decode", "ImageMask", "SMaskInData"].some((key) => dict.has(key) && dict.get(key) !== false && dict.get(key) !== 0) ||
    !(await isRgbOrGray(file, dict.get("ColorSpace")))
  ) {
    return null;
  }
  const bytes = await file.rawStreamData(image, file.size);
  // A JPEG starts with SOI and another marker; pdf.js tolerates junk before it, this path does not.
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return null;
  return { bytes, width, height };
}

/**
 * DeviceRGB, DeviceGray, or an ICC-based space with 1 or 3 components: those JPEGs look
 * right in any decoder. CMYK (often stored inverted by Adobe tools), Indexed, Lab and
 * Separation spaces need pdf.js's colour handling.
 */
async function isRgbOrGray(file: PdfFile, value: PdfValue | undefined): Promise<boolean> {
  const space = await file.resolve(value);
  if (isNamed(space, "DeviceRGB") || isNamed(space, "DeviceGray")) return true;
  if (!Array.isArray(space) || space.length !== 2 || !isNamed(space[0], "ICCBased")) return false;
  const profile = await file.resolve(space[1]);
  if (!isStream(profile)) return false;
  const components = await file.resolve(profile.dict.get("N"));
  return components === 1 || components === 3;
}
