/**
 * EPUB 2 and EPUB 3 books.
 *
 * Pages: a fixed-layout book (rendition:layout pre-paginated: manga, comics) has one page per
 * spine item, showing that item's image, so it reads like a comic archive. A reflowable book
 * has no fixed pages at all; its page count is the spine length and each page is a spine
 * document (XHTML), which is what the web reader walks through. Page images (and thumbnails)
 * of a reflowable book therefore come from its cover image, not from its pages.
 */
import type { AnalysisResult, FormatPlugin, PageInfo, PluginContext } from "../../src/formats/contract.ts";
import { failure, throwIfAborted } from "../../src/formats/errors.ts";
import { probeImageSize } from "../../src/formats/images.ts";
import { looksLikeEpub, looksLikeZip } from "../../src/formats/magic.ts";
import { openArchives } from "../../src/formats/open-archives.ts";
import { makeThumbnail, scaleToWidth } from "../../src/formats/resize.ts";
import { normaliseBookPath } from "./book-paths.ts";
import { EpubBook } from "./epub-book.ts";
import { describePublication } from "./publication.ts";

const MEDIA_TYPE = "application/epub+zip";
/** Raster images whose size can be read and which sharp can scale (not SVG). */
const isRasterImage = (mediaType: string): boolean => mediaType.startsWith("image/") && mediaType !== "image/svg+xml";

/**
 * The book opened for the web reader, which asks for its files one after another (container,
 * package, navigation, each chapter and what it links to): kept open between requests in the
 * open-archive LRU, as the comic archives are, instead of its ZIP directory and package being
 * read and parsed again for each file. Analysis opens its own.
 */
async function openForReading(path: string, ctx: PluginContext): Promise<EpubBook> {
  const book = await openArchives.open("epub", path, () => EpubBook.open(path, ctx), (opened) => opened.approximateBytes, ctx.file);
  return book.during(ctx);
}

async function analyze(path: string, ctx: PluginContext): Promise<AnalysisResult> {
  const book = await EpubBook.open(path, ctx);
  const pages: PageInfo[] = [];
  for (const item of book.spine) {
    throwIfAborted(ctx.signal);
    const page = await book.page(item);
    const size = isRasterImage(page.mediaType) ? await probeImageSize((byteCount) => book.readHead(page.path, byteCount)) : null;
    pages.push({
      fileName: page.path,
      mediaType: page.mediaType,
      width: size?.width ?? null,
      height: size?.height ?? null,
      size: book.uncompressedSize(page.path),
    });
  }
  const coverIndex = book.pkg.fixedLayout && book.pkg.cover ? pages.findIndex((page) => page.fileName === book.pkg.cover) : -1;
  return {
    format: "epub",
    mediaType: MEDIA_TYPE,
    pages,
    metadata: { source: "opf", values: book.pkg.metadata },
    coverPage: pages.length === 0 ? null : coverIndex + 1 || 1,
  };
}

export const epubPlugin: FormatPlugin = {
  id: "epub",
  name: "EPUB",
  extensions: ["epub"],
  mediaTypes: [MEDIA_TYPE],
  // 2 for a proper OCF container; 1 for any ZIP, so that an .epub whose mimetype entry is
  // missing or not first still reaches this plugin when the extension breaks the tie.
  detect: (head) => (looksLikeEpub(head) ? 2 : looksLikeZip(head) ? 1 : 0),
  analyze,

  async readPage(path, pageNumber, ctx, options) {
    const book = await EpubBook.open(path, ctx);
    const item = book.spine[pageNumber - 1];
    if (!Number.isInteger(pageNumber) || !item) {
      throw failure("page_extraction", "not_found", `Page ${pageNumber} does not exist; the book has ${book.spine.length} pages`, {
        pageNumber,
        pageCount: book.spine.length,
      });
    }
    const page = await book.page(item);
    const image = { bytes: await book.read(page.path), mediaType: page.mediaType };
    return options?.maxWidth && isRasterImage(page.mediaType) ? scaleToWidth(image, options.maxWidth, ctx.limits.maxPixels) : image;
  },

  async thumbnail(path, ctx, options) {
    const book = await EpubBook.open(path, ctx);
    const cover = await book.coverImage();
    if (!cover) throw failure("thumbnail", "not_found", "The EPUB declares no cover image and its first page shows none");
    return makeThumbnail(await book.read(cover), options, ctx.limits.maxPixels);
  },

  /** Any file of the book by its path inside the ZIP; `..` cannot leave the book. */
  async readResource(path, resourcePath, ctx) {
    const book = await openForReading(path, ctx);
    const normalised = normaliseBookPath(resourcePath);
    if (!normalised || !book.has(normalised)) {
      throw failure("other", "not_found", `"${resourcePath}" is not a resource of this book`, { resource: resourcePath });
    }
    return { bytes: await book.read(normalised), mediaType: book.mediaTypeOf(normalised) };
  },

  async publication(path, ctx) {
    return describePublication(await openForReading(path, ctx));
  },
};

export default epubPlugin;
