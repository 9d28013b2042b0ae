/**
 * The binary data pdf.js loads on demand (standard fonts, CMaps, the JBIG2/OpenJPEG wasm
 * decoders), embedded with `type: "file"` and served to pdf.js through a BinaryDataFactory, so
 * that nothing is read from node_modules or the network at run time (required for the single
 * compiled binary, and the same code path in development).
 *
 * Not embedded: qcms_bg.wasm and the ICC profile. pdf.js only uses them when it fetches data
 * itself in the worker (`useWorkerFetch`, a browser feature); with a BinaryDataFactory it
 * falls back to its JavaScript colour conversion, so they would be dead weight.
 */
import foxitDingbats from "pdfjs-dist/standard_fonts/FoxitDingbats.pfb" with { type: "file" };
import foxitFixed from "pdfjs-dist/standard_fonts/FoxitFixed.pfb" with { type: "file" };
import foxitFixedBold from "pdfjs-dist/standard_fonts/FoxitFixedBold.pfb" with { type: "file" };
import foxitFixedBoldItalic from "pdfjs-dist/standard_fonts/FoxitFixedBoldItalic.pfb" with { type: "file" };
import foxitFixedItalic from "pdfjs-dist/standard_fonts/FoxitFixedItalic.pfb" with { type: "file" };
import foxitSerif from "pdfjs-dist/standard_fonts/FoxitSerif.pfb" with { type: "file" };
import foxitSerifBold from "pdfjs-dist/standard_fonts/FoxitSerifBold.pfb" with { type: "file" };
import foxitSerifBoldItalic from "pdfjs-dist/standard_fonts/FoxitSerifBoldItalic.pfb" with { type: "file" };
import foxitSerifItalic from "pdfjs-dist/standard_fonts/FoxitSerifItalic.pfb" with { type: "file" };
import foxitSymbol from "pdfjs-dist/standard_fonts/FoxitSymbol.pfb" with { type: "file" };
import liberationSansBold from "pdfjs-dist/standard_fonts/LiberationSans-Bold.ttf" with { type: "file" };
import liberationSansBoldItalic from "pdfjs-dist/standard_fonts/LiberationSans-BoldItalic.ttf" with { type: "file" };
import liberationSansItalic from "pdfjs-dist/standard_fonts/LiberationSans-Italic.ttf" with { type: "file" };
import liberationSansRegular from "pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf" with { type: "file" };
import jbig2Wasm from "pdfjs-dist/wasm/jbig2.wasm" with { type: "file" };
import openjpegWasm from "pdfjs-dist/wasm/openjpeg.wasm" with { type: "file" };
import { EMBEDDED_CMAPS } from "./embedded-cmaps.ts";

type DataKind = "cMapUrl" | "standardFontDataUrl" | "wasmUrl";

/** File name (as pdf.js asks for it) -> path of the embedded file, per kind of data. */
const EMBEDDED_FILES: Readonly<Record<DataKind, Readonly<Record<string, string>>>> = {
  cMapUrl: EMBEDDED_CMAPS,
  standardFontDataUrl: {
    "FoxitDingbats.pfb": foxitDingbats,
    "FoxitFixed.pfb": foxitFixed,
    "FoxitFixedBold.pfb": foxitFixedBold,
    "FoxitFixedBoldItalic.pfb": foxitFixedBoldItalic,
    "FoxitFixedItalic.pfb": foxitFixedItalic,
    "FoxitSerif.pfb": foxitSerif,
    "FoxitSerifBold.pfb": foxitSerifBold,
    "FoxitSerifBoldItalic.pfb": foxitSerifBoldItalic,
    "FoxitSerifItalic.pfb": foxitSerifItalic,
    "FoxitSymbol.pfb": foxitSymbol,
    "LiberationSans-Bold.ttf": liberationSansBold,
    "LiberationSans-BoldItalic.ttf": liberationSansBoldItalic,
    "LiberationSans-Italic.ttf": liberationSansItalic,
    "LiberationSans-Regular.ttf": liberationSansRegular,
  },
  wasmUrl: {
    "jbig2.wasm": jbig2Wasm,
    "openjpeg.wasm": openjpegWasm,
  },
};

/**
 * pdf.js only asks its BinaryDataFactory for a kind of data when the matching `*Url` option is
 * set, and it insists on a trailing slash; the value itself is never fetched.
 */
export const EMBEDDED_DATA_URLS = {
  cMapUrl: "embedded:cmaps/",
  standardFontDataUrl: "embedded:standard_fonts/",
  wasmUrl: "embedded:wasm/",
} as const;

/** Loaded bytes stay cached: fonts and decoders are asked for again by every document. */
const loaded = new Map<string, Promise<Uint8Array>>();

/**
 * Implements the BinaryDataFactory interface pdf.js 6 calls (`new Factory(urls)`, then
 * `fetch({ kind, filename })` resolving to bytes).
 */
export class EmbeddedBinaryDataFactory {
  async fetch({ kind, filename }: { kind: DataKind; filename: string }): Promise<Uint8Array> {
    const path = EMBEDDED_FILES[kind]?.[filename];
    if (!path) throw new Error(`pdf.js asked for ${kind} data "${filename}", which is not embedded`);
    let bytes = loaded.get(path);
    if (!bytes) {
      bytes = Bun.file(path).bytes();
      loaded.set(path, bytes);
      bytes.catch(() => loaded.delete(path));
    }
    // pdf.js may transfer or keep the buffer: give it its own copy.
    return (await bytes).slice();
  }
}
