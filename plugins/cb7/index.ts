/** Comic books in 7z archives (.cb7, .7z; solid or not), through 7-Zip compiled to WebAssembly. */
import { analyzeComicArchive, comicArchiveReading } from "../../src/formats/comic-archive.ts";
import type { FormatPlugin } from "../../src/formats/contract.ts";
import { looksLikeSevenZip } from "../../src/formats/magic.ts";
import { warmSevenZip } from "../seven-zip/seven-zip.ts";
import { SevenZipComicArchive } from "./seven-zip-comic-archive.ts";

const MEDIA_TYPE = "application/x-cb7";

export const cb7Plugin: FormatPlugin = {
  id: "cb7",
  name: "Comic book archive (7z)",
  extensions: ["cb7", "7z"],
  mediaTypes: [MEDIA_TYPE, "application/x-7z-compressed"],
  detect: (head) => (looksLikeSevenZip(head) ? 2 : 0),
  warm: warmSevenZip,
  analyze: async (path, ctx) => analyzeComicArchive(await SevenZipComicArchive.open(path, ctx), { id: "cb7", mediaType: MEDIA_TYPE }, ctx),
  // An open archive is its listing (a synchronous 7-Zip run): names and sizes only, the bytes
  // come from the extraction cache. No entry is a plain range of the file.
  ...comicArchiveReading("cb7", SevenZipComicArchive.open, (archive) => archive.fileNames.length * 256, { storedPages: false }),
};

export default cb7Plugin;
