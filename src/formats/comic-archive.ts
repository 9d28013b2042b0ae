/**
 * What every comic archive format shares once its container is open: page selection and
 * order, ComicInfo.xml, page sizes, the cover, and reading one page. The cbz and cbr plugins
 * (and third-party containers such as cbt) only supply a ComicArchive for their container.
 */
import { findComicInfo, selectPages } from "./archive-pages.ts";
import { parseComicInfo } from "./comicinfo.ts";
import {
  type AnalysisResult,
  BookAnalysisError,
  type FormatPlugin,
  type PageImage,
  type PageInfo,
  type PageLocation,
  type PluginContext,
  type ReadPageOptions,
} from "./contract.ts";
import { failure, throwIfAborted } from "./errors.ts";
import { formatBytes } from "./limits.ts";
import { type ArchiveWeight, openArchives } from "./open-archives.ts";
import { decodeBudget, decodeCost } from "./decode-budget.ts";
import { type ImageSize, pageMediaTypeForName, probeImageSize, sniffImageMediaType } from "./images.ts";
import { JXL_MEDIA_TYPE } from "./jxl.ts";
import { scaleToWidth } from "./resize.ts";

export interface ComicArchive {
  /** Names of the file entries (no directories), `/`-separated. */
  readonly fileNames: readonly string[];
  /** Uncompressed size of an entry as declared by the container; null if unknown. */
  uncompressedSize(name: string): number | null;
  /**
   * Throws the typed error that reading this entry would raise (encrypted, unsupported
   * method, over the limits) without reading it, so analysis reports it up front.
   */
  assertReadable(name: string): void;
  /** Pixel sizes of these pages, reading as little as the container allows. */
  probePageSizes(names: readonly string[], ctx: PluginContext): Promise<Map<string, ImageSize | null>>;
  read(name: string, ctx: PluginContext): Promise<Uint8Array>;
  /** Where the entry's bytes lie unmodified in the file, when the container stores them so. */
  storedRange?(name: string): Promise<{ offset: number; length: number } | null>;
  /** The first bytes of an entry (enough to tell an image's type). */
  readHead?(name: string, byteCount: number, ctx: PluginContext): Promise<Uint8Array>;
}

export interface ComicArchiveFormat {
  /** Plugin id (cbz, cbr, ...). */
  id: string;
  /** Media type of the book file. */
  mediaType: string;
}

export async function analyzeComicArchive(
  archive: ComicArchive,
  format: ComicArchiveFormat,
  ctx: PluginContext,
): Promise<AnalysisResult> {
  const pageNames = selectPages(archive.fileNames);
  for (const name of pageNames) archive.assertReadable(name);

  const problems: BookAnalysisError[] = [];
  const comicInfo = await readComicInfo(archive, ctx, problems);
  throwIfAborted(ctx.signal);

  const sizes = await archive.probePageSizes(pageNames, ctx);
  const pages: PageInfo[] = pageNames.map((name) => {
    const size = sizes.get(name) ?? null;
    return {
      fileName: name,
      mediaType: pageMediaTypeForName(name) ?? "application/octet-stream",
      width: size?.width ?? null,
      height: size?.height ?? null,
      size: archive.uncompressedSize(name),
    };
  });
  // A JPEG XL page whose header nothing reads stays a page of the book, with an error naming it.
  pages.forEach((page, index) => {
    if (page.mediaType !== JXL_MEDIA_TYPE || page.width !== null) return;
    problems.push(
      failure("page_extraction", "corrupt", `Page ${index + 1} (${page.fileName}) is a JPEG XL image that cannot be read`, {
        pageNumber: index + 1,
        entry: page.fileName,
      }),
    );
  });

  const coverIndex = comicInfo?.frontCoverImageIndex;
  const coverPage = pages.length === 0 ? null : coverIndex !== undefined && coverIndex < pages.length ? coverIndex + 1 : 1;
  return {
    format: format.id,
    mediaType: format.mediaType,
    pages,
    metadata: comicInfo ? { source: "comicinfo", values: comicInfo.metadata } : null,
    coverPage,
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** A damaged ComicInfo.xml does not make the pages unreadable: it becomes a `metadata` problem. */
async function readComicInfo(archive: ComicArchive, ctx: PluginContext, problems: BookAnalysisError[]) {
  const name = findComicInfo(archive.fileNames);
  if (name === undefined) return undefined;
  try {
    archive.assertReadable(name);
    return parseComicInfo(await archive.read(name, ctx), name);
  } catch (error) {
    if (!(error instanceof BookAnalysisError)) throw error;
    if (error.details?.reason === "aborted" || error.details?.reason === "timeout") throw error;
    problems.push(new BookAnalysisError("metadata", `${name} could not be read: ${error.message}`, error.details));
    return undefined;
  }
}

/** The entry name of page `pageNumber` (1-based), or a page_extraction error. */
function pageEntryName(archive: ComicArchive, pageNumber: number): string {
  const pageNames = selectPages(archive.fileNames);
  const name = pageNames[pageNumber - 1];
  if (!Number.isInteger(pageNumber) || name === undefined) {
    throw failure("page_extraction", "not_found", `Page ${pageNumber} does not exist; the book has ${pageNames.length} pages`, {
      pageNumber,
      pageCount: pageNames.length,
    });
  }
  return name;
}

const mediaTypeOf = (name: string, head: Uint8Array) =>
  sniffImageMediaType(head) ?? pageMediaTypeForName(name) ?? "application/octet-stream";

/** One page (1-based) as image bytes, optionally scaled to `maxWidth`. */
export async function readComicPage(
  archive: ComicArchive,
  pageNumber: number,
  ctx: PluginContext,
  options: ReadPageOptions = {},
): Promise<PageImage> {
  const name = pageEntryName(archive, pageNumber);
  archive.assertReadable(name);
  const pixels = await headerPixels(archive, name, pageNumber, ctx);
  const entryBytes = archive.uncompressedSize(name) ?? 0;
  if (pixels !== null && entryBytes > pixels * MAX_BYTES_PER_PIXEL + PAGE_BYTES_SLACK) {
    throw failure(
      "page_extraction",
      "limit_exceeded",
      `Page ${pageNumber} is ${formatBytes(entryBytes)}, more than an image of ${pixels} pixels can take: it is not decoded`,
      { pageNumber, entry: name, bytes: entryBytes, pixels },
    );
  }
  // One reservation for inflating the entry and scaling it: the scale inside does not wait again.
  const cost = decodeCost(entryBytes, options.maxWidth ? (pixels ?? 0) : 0);
  return decodeBudget.run(cost, async () => {
    const bytes = await archive.read(name, ctx);
    const page = { bytes, mediaType: mediaTypeOf(name, bytes) };
    return options.maxWidth ? scaleToWidth(page, options.maxWidth, ctx.limits.maxPixels) : page;
  });
}

/**
 * The most bytes an image file can honestly spend per pixel: an uncompressed 16-bit RGBA PNG
 * (8 bytes), plus room for metadata. A page bigger than that for the size its header gives is
 * filler, and inflating it would only cost time and memory.
 */
const MAX_BYTES_PER_PIXEL = 8;
const PAGE_BYTES_SLACK = 4 * 1024 * 1024;

/**
 * The page's pixel count from its header, read before the entry is inflated whole. When the
 * container can read an entry's head and no decoder recognises it, the page is refused here:
 * a "page" of deflated zeros would otherwise be inflated in full (hundreds of MiB, seconds of
 * CPU) only for the image decoder to reject it.
 */
async function headerPixels(archive: ComicArchive, name: string, pageNumber: number, ctx: PluginContext): Promise<number | null> {
  const readHead = archive.readHead?.bind(archive);
  if (!readHead) return null;
  const size = await probeImageSize((byteCount) => readHead(name, byteCount, ctx));
  if (!size) throw failure("page_extraction", "corrupt", `Page ${pageNumber} is not an image the server can read`, { pageNumber, entry: name });
  return size.width * size.height;
}

/** Where page `pageNumber` lies unmodified in the file, when the container stores it so. */
export async function locateComicPage(archive: ComicArchive, pageNumber: number, ctx: PluginContext): Promise<PageLocation | null> {
  const name = pageEntryName(archive, pageNumber);
  const range = archive.storedRange ? await archive.storedRange(name) : null;
  if (!range || !archive.readHead) return null;
  return { ...range, mediaType: mediaTypeOf(name, await archive.readHead(name, 32, ctx)) };
}

/**
 * A comic archive format's readPage and locatePage. Readers ask page after page: the archive
 * stays open between requests in the open-archive LRU (analysis opens its own), and `weight`
 * says what an open one holds in memory. A container that never stores a page as a plain range
 * of its file (`storedPages: false`) gets no locatePage: the registry then answers null at once.
 */
export function comicArchiveReading<T extends ComicArchive>(
  id: string,
  open: (path: string, ctx: PluginContext) => Promise<T>,
  weight: ArchiveWeight<T>,
  { storedPages = true } = {},
): Pick<FormatPlugin, "readPage" | "locatePage"> {
  const forReading = (path: string, ctx: PluginContext) => openArchives.open(id, path, () => open(path, ctx), weight, ctx.file);
  const readPage: FormatPlugin["readPage"] = async (path, pageNumber, ctx, options) => readComicPage(await forReading(path, ctx), pageNumber, ctx, options);
  if (!storedPages) return { readPage };
  return { readPage, locatePage: async (path, pageNumber, ctx) => locateComicPage(await forReading(path, ctx), pageNumber, ctx) };
}
