/** Comic books in ZIP archives (.cbz, .zip): pages are the images, metadata is ComicInfo.xml. */
import { analyzeComicArchive, comicArchiveReading } from "../../src/formats/comic-archive.ts";
import type { FormatPlugin } from "../../src/formats/contract.ts";
import { looksLikeZip } from "../../src/formats/magic.ts";
import { ZipComicArchive } from "./zip-comic-archive.ts";

const MEDIA_TYPE = "application/vnd.comicbook+zip";

export const cbzPlugin: FormatPlugin = {
  id: "cbz",
  name: "Comic book archive (ZIP)",
  extensions: ["cbz", "zip"],
  mediaTypes: [MEDIA_TYPE, "application/x-cbz", "application/zip"],
  // Any ZIP: a .cbr or .epub that is really a plain ZIP of images is still readable as one.
  detect: (head) => (looksLikeZip(head) ? 1 : 0),
  analyze: async (path, ctx) => analyzeComicArchive(await ZipComicArchive.open(path, ctx), { id: "cbz", mediaType: MEDIA_TYPE }, ctx),
  // An open archive holds its parsed central directory.
  ...comicArchiveReading("cbz", ZipComicArchive.open, (archive) => archive.approximateBytes),
};

export default cbzPlugin;
