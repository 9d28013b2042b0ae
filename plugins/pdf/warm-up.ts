/**
 * A PDF worker's warm-up (issue 31): a worker started ahead of a read (the book's page or the
 * reader opening: PdfWorkerPool.warm) renders a small PDF made here, so that the work done once
 * per thread is over before the book's first page is asked for. Measured on a scanned page
 * (issue12963.pdf, page 1, 1600 px wide), in the worker thread: 270-300 ms of CPU for the first
 * render in a fresh worker, 125-140 ms for the same page rendered again in it, 185-220 ms after
 * this warm-up (which itself takes 90 ms). The difference is JavaScriptCore compiling the pdf.js
 * code each stage runs (parser, fonts, CMaps, annotations, image decoders, canvas drawing), not
 * anything a document keeps: a second document pays none of it.
 *
 * So the page below goes through every stage a page of a book does, each on a few bytes: text
 * in two standard fonts (TrueType and Type 1 font programs, a ToUnicode CMap), a Flate RGB
 * image large enough for pdf.js's native inflating, a CCITT image (decoded by pdf.js's jbig2
 * WebAssembly, like JBIG2), a JPEG image (pdf.js's own decoder), a form field's appearance
 * stream, all drawn smaller than they are so that the sharp prescaling runs, then the JPEG
 * encoding of the canvas.
 */
import zlib from "node:zlib";
import type { AnalysisLimits } from "../../src/formats/contract.ts";
import { renderPdfPage } from "./page-render.ts";

/** Large enough for every image below, far below any configured limit. */
const WARM_UP_LIMITS: AnalysisLimits = { maxPixels: 1_000_000, maxEntryBytes: 1 << 20, maxEntries: 1, maxCompressionRatio: 1000 };
/** The page is 200 pt wide: images of 64 px drawn 48 pt wide stay larger than drawn. */
const WARM_UP_WIDTH = 120;
const IMAGE_SIZE = 64;

/** Renders the warm-up page; rejects if pdf.js, canvas or sharp cannot run (the caller only logs it). */
export async function warmUpPdfRendering(): Promise<void> {
  await renderPdfPage(await warmUpPdf(), 1, WARM_UP_LIMITS, WARM_UP_WIDTH);
}

/** The warm-up page's PDF file (a single page, see above). */
export async function warmUpPdf(): Promise<Uint8Array> {
  const { default: sharp } = await import("sharp");
  const rgb = noise(IMAGE_SIZE * IMAGE_SIZE * 3);
  const jpeg = await sharp(rgb, { raw: { width: IMAGE_SIZE, height: IMAGE_SIZE, channels: 3 } }).jpeg().toBuffer();
  const content = [
    "q 0.2 0.4 0.8 rg 10 150 180 40 re f Q",
    "BT /F1 14 Tf 14 162 Td (Longbox) Tj /F2 10 Tf 0 -24 Td (warm-up) Tj ET",
    "q 48 0 0 48 4 60 cm /Flate Do Q",
    "q 48 0 0 48 76 60 cm /Jpeg Do Q",
    "q 48 0 0 48 148 60 cm /Ccitt Do Q",
  ].join("\n");
  const toUnicode = [
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
    "/CMapName /Warm-UCS def /CMapType 2 def",
    "1 begincodespacerange <00> <FF> endcodespacerange",
    "1 beginbfrange <20> <7E> <0020> endbfrange",
    "endcmap CMapName currentdict /CMap defineresource pop end end",
  ].join("\n");
  return pdfFile([
    /* 1 */ "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [9 0 R] >> >>",
    /* 2 */ "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    /* 3 */ "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Annots [9 0 R]" +
      " /Resources << /Font << /F1 5 0 R /F2 6 0 R >> /XObject << /Flate 7 0 R /Jpeg 8 0 R /Ccitt 11 0 R >> >> >>",
    /* 4 */ stream("", content),
    /* 5 */ "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 12 0 R >>",
    /* 6 */ "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
    /* 7 */ stream(`/Type /XObject /Subtype /Image /Width ${IMAGE_SIZE} /Height ${IMAGE_SIZE} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`, zlib.deflateSync(rgb)),
    /* 8 */ stream(`/Type /XObject /Subtype /Image /Width ${IMAGE_SIZE} /Height ${IMAGE_SIZE} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`, jpeg),
    /* 9 */ "<< /Type /Annot /Subtype /Widget /FT /Tx /T (field) /V (42) /Rect [10 10 190 40] /F 4 /P 3 0 R /AP << /N 10 0 R >> >>",
    /* 10 */ stream("/Type /XObject /Subtype /Form /BBox [0 0 180 30] /Resources << /Font << /F1 5 0 R >> >>", "/Tx BMC q BT /F1 12 Tf 4 10 Td (42) Tj ET Q EMC"),
    /* 11 */ stream(
      `/Type /XObject /Subtype /Image /Width ${IMAGE_SIZE} /Height ${IMAGE_SIZE} /ColorSpace /DeviceGray /BitsPerComponent 1 /Decode [1 0]` +
        ` /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns ${IMAGE_SIZE} /Rows ${IMAGE_SIZE} >>`,
      allWhiteCcittG4(IMAGE_SIZE),
    ),
    /* 12 */ stream("", toUnicode),
  ]);
}

/** Deterministic pseudo-random bytes (xorshift): they do not compress, so pdf.js inflates them natively. */
function noise(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

/**
 * A white image in CCITT group 4 (ITU-T T.6): each row is the same as the (white) row above,
 * one "vertical 0" code, a single 1 bit; then the end-of-facsimile-block code (two EOLs).
 */
function allWhiteCcittG4(rows: number): Uint8Array {
  const rowBytes = new Uint8Array(Math.ceil(rows / 8)).fill(0xff);
  if (rows % 8) rowBytes[rowBytes.length - 1] = (0xff << (8 - (rows % 8))) & 0xff;
  // The EOFB's 24 bits, starting on the byte after the rows (padding zeros before an EOL are allowed).
  return Uint8Array.of(...rowBytes, 0x00, 0x10, 0x01);
}

function stream(dictionary: string, data: string | Uint8Array): Uint8Array[] {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return [new TextEncoder().encode(`<< ${dictionary} /Length ${bytes.length} >>\nstream\n`), bytes, new TextEncoder().encode("\nendstream")];
}

/** A PDF file of these objects, numbered from 1, with its cross-reference table. */
function pdfFile(objects: (string | Uint8Array[])[]): Uint8Array {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [encoder.encode("%PDF-1.7\n")];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  const push = (chunk: Uint8Array) => {
    chunks.push(chunk);
    length += chunk.length;
  };
  objects.forEach((body, index) => {
    offsets.push(length);
    push(encoder.encode(`${index + 1} 0 obj\n`));
    for (const part of typeof body === "string" ? [encoder.encode(body)] : body) push(part);
    push(encoder.encode("\nendobj\n"));
  });
  const xref = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  push(encoder.encode(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  // A plain Uint8Array: pdf.js refuses a Buffer.
  const file = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    file.set(chunk, offset);
    offset += chunk.length;
  }
  return file;
}
