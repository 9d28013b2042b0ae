/** Media types of EPUB resources that are not in the manifest (META-INF files, sloppy books). */
import { extensionOf, PAGE_IMAGE_TYPES } from "../../src/formats/images.ts";

const RESOURCE_TYPES: Readonly<Record<string, string>> = {
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

export function mediaTypeForPath(path: string): string {
  return RESOURCE_TYPES[extensionOf(path)] ?? "application/octet-stream";
}
