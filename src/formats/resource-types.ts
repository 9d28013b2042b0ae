/**
 * Media types of the resources inside books (EPUB web reader): the server's own table. A
 * resource leaves the server only with a type from here, never with the string its book
 * declares: a declared type is only a key into the table (so `text/html\r\nSet-Cookie: ...` or
 * a U+FFFF in an OPF is just unknown), and script types are served as bytes, not as scripts.
 */
import { extensionOf, PAGE_IMAGE_TYPES } from "./images";

const BY_EXTENSION: Readonly<Record<string, string>> = {
  ...PAGE_IMAGE_TYPES,
  svg: "image/svg+xml",
  xhtml: "application/xhtml+xml",
  html: "application/xhtml+xml",
  htm: "application/xhtml+xml",
  css: "text/css",
  js: "text/javascript",
  xml: "application/xml",
  opf: "application/oebps-package+xml",
  ncx: "application/x-dtbncx+xml",
  smil: "application/smil+xml",
  ttf: "font/ttf",
  otf: "font/otf",
  woff: "font/woff",
  woff2: "font/woff2",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
};

/** Types books declare that the table above does not produce, and what they are served as. */
const DECLARED_SPELLINGS: Readonly<Record<string, string>> = {
  "text/html": "text/html",
  "text/plain": "text/plain",
  "image/jpg": "image/jpeg",
  "application/x-font-ttf": "font/ttf",
  "application/x-font-truetype": "font/ttf",
  "application/x-font-otf": "font/otf",
  "application/x-font-opentype": "font/otf",
  "application/vnd.ms-opentype": "font/otf",
  "application/font-sfnt": "font/ttf",
  "application/font-woff": "font/woff",
  "application/font-woff2": "font/woff2",
  "application/x-dtbook+xml": "application/x-dtbook+xml",
  "audio/mp4": "audio/mp4",
};

const KNOWN: ReadonlyMap<string, string> = new Map([
  ...Object.values(BY_EXTENSION).map((type) => [type, type] as const),
  ...Object.entries(DECLARED_SPELLINGS),
]);

/** Never served as what they are: a script from a book must not run anywhere on our origin. */
const SCRIPT_TYPES = new Set(["text/javascript", "application/javascript", "application/ecmascript", "text/ecmascript"]);

const UNKNOWN = "application/octet-stream";

/** The type of a resource by its file name, for books that declare none. */
export function mediaTypeForPath(path: string): string {
  return BY_EXTENSION[extensionOf(path)] ?? UNKNOWN;
}

/**
 * The type a resource is served with: the table's entry for the type the book declares (matched
 * on its essence, any case), else the one for its extension, else octet-stream.
 */
export function servedMediaType(declared: string, path: string): string {
  const essence = declared.split(";", 1)[0]!.trim().toLowerCase();
  const type = KNOWN.get(essence) ?? mediaTypeForPath(path);
  return SCRIPT_TYPES.has(type) ? UNKNOWN : type;
}
