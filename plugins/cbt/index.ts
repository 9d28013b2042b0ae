/** Comic books in tar archives (.cbt, .tar), plain or xz-compressed. */
import { analyzeComicArchive, comicArchiveReading } from "../../src/formats/comic-archive.ts";
import type { FormatPlugin } from "../../src/formats/contract.ts";
import { looksLikeTar, looksLikeXz } from "../../src/formats/magic.ts";
import { warmSevenZip } from "../seven-zip/seven-zip.ts";
import { TarComicArchive } from "./tar-comic-archive.ts";

const MEDIA_TYPE = "application/x-cbt";

export const cbtPlugin: FormatPlugin = {
  id: "cbt",
  name: "Comic book archive (tar)",
  extensions: ["cbt", "tar"],
  mediaTypes: [MEDIA_TYPE, "application/x-tar"],
  // An xz stream may hold anything: only a weak claim, settled when the tar inside is indexed.
  detect: (head) => (looksLikeTar(head) ? 2 : looksLikeXz(head) ? 1 : 0),
  // An xz-compressed tar is unpacked by 7-Zip: its WebAssembly is made ready while the book's
  // page is open (a plain tar does not need it; it is then ready for the next book that does).
  warm: warmSevenZip,
  analyze: async (path, ctx) => analyzeComicArchive(await TarComicArchive.open(path, ctx), { id: "cbt", mediaType: MEDIA_TYPE }, ctx),
  // An open archive is the tar's index (one header walk over the whole file): names and offsets only.
  ...comicArchiveReading("cbt", TarComicArchive.open, (archive) => archive.fileNames.length * 256),
};

export default cbtPlugin;
