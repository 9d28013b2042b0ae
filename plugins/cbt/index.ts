/** Comic books in tar archives (.cbt, .tar), plain or xz-compressed. */
import { analyzeComicArchive, locateComicPage, readComicPage } from "../../src/formats/comic-archive.ts";
import type { FormatPlugin, PluginContext } from "../../src/formats/contract.ts";
import { looksLikeTar, looksLikeXz } from "../../src/formats/magic.ts";
import { openArchives } from "../../src/formats/open-archives.ts";
import { TarComicArchive } from "./tar-comic-archive.ts";

const MEDIA_TYPE = "application/x-cbt";

export const cbtPlugin: FormatPlugin = {
  id: "cbt",
  name: "Comic book archive (tar)",
  extensions: ["cbt", "tar"],
  mediaTypes: [MEDIA_TYPE, "application/x-tar"],
  // An xz stream may hold anything: only a weak claim, settled when the tar inside is indexed.
  detect: (head) => (looksLikeTar(head) ? 2 : looksLikeXz(head) ? 1 : 0),
  analyze: async (path, ctx) => analyzeComicArchive(await TarComicArchive.open(path, ctx), { id: "cbt", mediaType: MEDIA_TYPE }, ctx),
  readPage: async (path, pageNumber, ctx, options) => readComicPage(await forReading(path, ctx), pageNumber, ctx, options),
  locatePage: async (path, pageNumber, ctx) => locateComicPage(await forReading(path, ctx), pageNumber, ctx),
};

/**
 * Readers ask page after page: the tar's index (one header walk over the whole file) is kept
 * between requests in the open-archive LRU; it holds names and offsets only.
 */
const forReading = (path: string, ctx: PluginContext) =>
  openArchives.open("cbt", path, () => TarComicArchive.open(path, ctx), (archive) => archive.fileNames.length * 256);

export default cbtPlugin;
