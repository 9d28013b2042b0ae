/**
 * Pages of a book: the stored list, and one page's image through the format registry (which
 * reads only that page's entry, or renders that PDF page). Rendered and resized pages go through
 * the page cache. Every page has a strong validator derived from the book's content hash, the
 * page number and the width, so clients revalidate without the server reading the book.
 *
 * The content hash is the last scan's: a file rewritten on disk since (its size or modification
 * time no longer those catalogued) has new content the hash does not describe. Until a rescan,
 * its pages have no validator and bypass the page cache, so neither an old cached page nor an
 * old ETag is passed off as the new content.
 */
import { statSync } from "node:fs";
import { DomainError } from "../errors";
import type { PageImage, PageLocation } from "../formats/contract";
import type { FormatRegistry } from "../formats/registry";
import { reencode } from "../formats/resize";
import type { BookFileView, BookView, PageRecord, Repositories } from "../db";
import { asCatalogued, openableFile, type OpenableFile, readFailure } from "./book-files";
import type { BookService, Caller } from "./books";
import type { PageCache } from "./page-cache";

/** A 404 for a page number the book does not have (the Komga API answers it with a 400). */
export class PageOutOfRange extends DomainError {
  constructor(number: number, pageCount: number) {
    super("NotFound", `page ${number} does not exist: the book has ${pageCount} pages`);
  }
}

/** One page of one book at one width: what to read, and its validator. */
export interface PageRef {
  book: BookFileView;
  number: number;
  width: number | undefined;
  /**
   * Stable for the same content, page and width; also the page cache key. Null while the file
   * differs from the catalogued one (rewritten since the last scan): nothing names its content.
   */
  tag: string | null;
}

/** A page whose content the catalogue describes. */
type TaggedPage = PageRef & { tag: string };

const MAX_REMEMBERED_LOCATIONS = 20_000;

/** A page to send: bytes in memory, or a range of the book's file that Bun sends from the file. */
export type PageContent =
  | { kind: "bytes"; image: PageImage }
  | { kind: "file"; path: string; offset: number; length: number; mediaType: string };

export class PageService {
  /**
   * Where stored pages lie in their files, by page tag (content hash + page + width): a reader
   * paging through a book asks again and again. A file rewritten on disk since its scan has no
   * tag, so its pages are located anew, never sent from where they lay in the old file.
   */
  private readonly locations = new Map<string, PageLocation | null>();
  /** Reads in progress by cache key: concurrent requests for one page share one rendering. */
  private readonly inFlight = new Map<string, Promise<PageImage>>();

  constructor(
    private readonly repositories: Repositories,
    private readonly books: BookService,
    private readonly formats: FormatRegistry,
    private readonly cache: PageCache,
  ) {}

  async list(caller: Caller, bookId: string): Promise<PageRecord[]> {
    const book = await this.books.get(caller, bookId);
    return this.repositories.books.pages(book.id);
  }

  /**
   * Which of these (visible) books can be read as a sequence of images: every page is an image.
   * Comic archives, PDFs (rendered pages) and fixed-layout EPUBs qualify; a reflowable EPUB,
   * whose pages are XHTML documents, does not.
   */
  async imageOnly(books: Pick<BookView, "id" | "pageCount">[]): Promise<Set<string>> {
    const withPages = books.filter((book) => book.pageCount > 0).map((book) => book.id);
    const excluded = await this.repositories.books.withNonImagePages(withPages);
    return new Set(withPages.filter((id) => !excluded.has(id)));
  }

  /**
   * The page, or 404 when the book is not visible or `number` is outside 1..pageCount. The file
   * is stat'ed (not opened) to tell whether the catalogue still describes it: one system call,
   * on every revalidation too. Where the file really lies (links resolved, inside its library:
   * `openableFile`, a walk of the whole path) is checked only when the page is read; a file gone
   * since the scan has no tag, so it is never answered 304 and its read is the clear 404.
   */
  async locate(caller: Caller, bookId: string, number: number, width?: number): Promise<PageRef> {
    const book = await this.books.fileOf(caller, bookId);
    if (!Number.isInteger(number) || number < 1 || number > book.pageCount) {
      throw new PageOutOfRange(number, book.pageCount);
    }
    const catalogued = statsAsCatalogued(book);
    // Bun's one-shot SHA-256 (same digest as node:crypto's, a fifth of its cost per request).
    const tag = catalogued ? Bun.SHA256.hash(`${book.fileHash}:${number}:${width ?? "original"}`, "hex") : null;
    return { book, number, width, tag };
  }

  /**
   * What to send for the page: a stored page at its original width is a range of the book's
   * file (no bytes pass through the server's memory); anything else is read or rendered.
   */
  async content(page: PageRef): Promise<PageContent> {
    if (page.width === undefined && !this.formats.rendersPages(page.book.fileFormat)) {
      const file = openableFile(page.book); // a clear 404 when the file went away since the scan
      const current = stillAsLocated(page, file);
      const remembered = current.tag === null ? undefined : this.locations.get(current.tag);
      const location = remembered === undefined ? await this.findLocation(current, file) : remembered;
      return location ? { kind: "file", path: file.path, ...location } : { kind: "bytes", image: await this.read(current, file) };
    }
    return { kind: "bytes", image: await this.read(page) };
  }

  /** Where the page lies in the file, or null when it must be read (compressed): remembered for a tagged page. */
  private async findLocation(page: PageRef, file: OpenableFile): Promise<PageLocation | null> {
    let location;
    try {
      location = await this.formats.locatePage(file.path, page.number, { formatId: page.book.fileFormat, file: file.info });
    } catch (error) {
      throw readFailure(error);
    }
    if (page.tag !== null) {
      // Insertion order makes the Map a simple FIFO bound: the oldest answer goes first.
      if (this.locations.size >= MAX_REMEMBERED_LOCATIONS) this.locations.delete(this.locations.keys().next().value!);
      this.locations.set(page.tag, location);
    }
    return location;
  }

  /** The page's image; `file`: the book's file when the caller has just resolved it. */
  async read(page: PageRef, file?: OpenableFile): Promise<PageImage> {
    // Untagged (the file changed since its scan): read as the file is now, shared with nothing.
    if (!isTagged(page)) return this.readFromBook(page, file ?? openableFile(page.book));
    const cached = this.worthCaching(page) ? await this.cache.get(page.tag) : undefined;
    if (cached) return cached;
    const running = this.inFlight.get(page.tag);
    if (running) return running;
    const reading = this.readFromBook(page, file ?? openableFile(page.book)).finally(() => this.inFlight.delete(page.tag));
    this.inFlight.set(page.tag, reading);
    return reading;
  }

  /**
   * The page in one of `mediaTypes`: as read when it already is one, else re-encoded as
   * `fallback` (JPEG unless said otherwise).
   */
  async readAs(page: PageRef, mediaTypes: readonly string[], fallback: "jpeg" | "png" = "jpeg"): Promise<PageImage> {
    const image = await this.read(page);
    if (mediaTypes.includes(image.mediaType)) return image;
    try {
      return await reencode(image, fallback, this.formats.limits.maxPixels);
    } catch (error) {
      throw readFailure(error);
    }
  }

  /** Reads through the format registry, which hands the file's stat on to the plugin (no second stat for an open archive). */
  private async readFromBook(located: PageRef, file: OpenableFile): Promise<PageImage> {
    const page = stillAsLocated(located, file);
    const { book } = page;
    let image: PageImage;
    try {
      image = await this.formats.readPage(file.path, page.number, { formatId: book.fileFormat, maxWidth: page.width, file: file.info });
    } catch (error) {
      throw readFailure(error);
    }
    if (isTagged(page) && this.worthCaching(page)) await this.cache.put(page.tag, image);
    return image;
  }

  /** Rendered pages and resized ones cost real work; stored images are read straight from the book. */
  private worthCaching(page: TaggedPage): boolean {
    return this.cache.enabled && (page.width !== undefined || this.formats.rendersPages(page.book.fileFormat));
  }
}

const isTagged = (page: PageRef): page is TaggedPage => page.tag !== null;

/**
 * Whether the book's file is as the catalogue describes it (a plain stat: one system call).
 * Missing, not a file, or not stat-able (permissions, a dropped network mount): false, and the
 * read that follows gives the clear answer (404) through `openableFile`.
 */
function statsAsCatalogued(book: BookFileView): boolean {
  try {
    const now = statSync(book.filePath, { throwIfNoEntry: false });
    return now?.isFile() === true && asCatalogued(book, now);
  } catch {
    return false;
  }
}

/** The page as located, or untagged when the file about to be read changed since (rewritten in between). */
function stillAsLocated(page: PageRef, file: OpenableFile): PageRef {
  return page.tag !== null && !asCatalogued(page.book, file.info) ? { ...page, tag: null } : page;
}
