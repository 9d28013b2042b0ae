/** Comic books in RAR archives (.cbr, .rar; RAR 4 and RAR 5, solid or not). */
import { analyzeComicArchive, locateComicPage, readComicPage } from "../../src/formats/comic-archive.ts";
import type { FormatPlugin, PluginContext } from "../../src/formats/contract.ts";
import { rarVersion } from "../../src/formats/magic.ts";
import { openArchives } from "../../src/formats/open-archives.ts";
import { RarComicArchive } from "./rar-comic-archive.ts";

const MEDIA_TYPE = "application/vnd.comicbook-rar";

export const cbrPlugin: FormatPlugin = {
  id: "cbr",
  name: "Comic book archive (RAR)",
  extensions: ["cbr", "rar"],
  mediaTypes: [MEDIA_TYPE, "application/x-cbr", "application/vnd.rar", "application/x-rar-compressed"],
  detect: (head) => (rarVersion(head) ? 2 : 0),
  analyze: async (path, ctx) => analyzeComicArchive(await RarComicArchive.open(path, ctx), { id: "cbr", mediaType: MEDIA_TYPE }, ctx),
  readPage: async (path, pageNumber, ctx, options) => readComicPage(await forReading(path, ctx), pageNumber, ctx, options),
  locatePage: async (path, pageNumber, ctx) => locateComicPage(await forReading(path, ctx), pageNumber, ctx),
};

/** Readers ask page after page: the archive (its whole file) stays in memory between requests, within openArchives' bounds. */
const forReading = (path: string, ctx: PluginContext) =>
  openArchives.open("cbr", path, () => RarComicArchive.open(path, ctx), (archive) => archive.approximateBytes);

export default cbrPlugin;
