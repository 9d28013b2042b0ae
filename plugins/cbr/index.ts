/** Comic books in RAR archives (.cbr, .rar; RAR 4 and RAR 5, solid or not). */
import { analyzeComicArchive, comicArchiveReading } from "../../src/formats/comic-archive.ts";
import type { FormatPlugin } from "../../src/formats/contract.ts";
import { rarVersion } from "../../src/formats/magic.ts";
import { RarComicArchive } from "./rar-comic-archive.ts";
import { warmUnrar } from "./unrar.ts";

const MEDIA_TYPE = "application/vnd.comicbook-rar";

export const cbrPlugin: FormatPlugin = {
  id: "cbr",
  name: "Comic book archive (RAR)",
  extensions: ["cbr", "rar"],
  mediaTypes: [MEDIA_TYPE, "application/x-cbr", "application/vnd.rar", "application/x-rar-compressed"],
  warm: warmUnrar,
  detect: (head) => (rarVersion(head) ? 2 : 0),
  analyze: async (path, ctx) => analyzeComicArchive(await RarComicArchive.open(path, ctx), { id: "cbr", mediaType: MEDIA_TYPE }, ctx),
  // An open archive holds its whole file, within openArchives' bounds.
  ...comicArchiveReading("cbr", RarComicArchive.open, (archive) => archive.approximateBytes),
};

export default cbrPlugin;
