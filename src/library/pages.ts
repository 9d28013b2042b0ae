/**
 * Pages of a book: the stored list, and one page's image through the format registry (which
 * reads only that page's entry, or renders that PDF page). Rendered and resized pages go through
 * the page cache. Every page has a strong validator derived from the book's content hash, the
 * page number and the width, so clients revalidate without the server reading the book.
 *
 * The content hash is the last scan's: a file rewritten on disk since (its size or modification
 * time no longer those catalogued) has new content the hash does not describe. Its pages are
 * then named by the book and the file's version (`fileVersion`, as its download is), so neither
 * an old cached page nor an old ETag is passed off as the new content.
 */
import { type Stats, statSync } from "node:fs";
import { DomainError } from "../errors";
import type { FileStamp, PageImage, PageLocation } from "../formats/contract";
import type { FormatRegistry } from "../formats/registry";
import { SNIFFED_IMAGE_TYPES, sniffImageMediaType } from "../formats/images";
import { placeholderImage } from "../formats/placeholder";
import { toBookAnalysisError } from "../formats/registry";
import { failureReason } from "../formats/errors";
import { reencode } from "../formats/resize";
import type { BookFileView, BookView, PageRecord, Repositories } from "../db";
import { fileVersion, openableFile, type OpenableFile, readFailure } from "./book-files";
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
  /** The version of the book's file the page was located in (`fileVersion`). */
  version: string;
  /** The stat of the book's catalogued path that version was taken from. */
  stat: Stats;
  /** Stable for the same content, page and width; also the page cache key. */
  tag: string;
}

const MAX_REMEMBERED_LOCATIONS = 20_000;

/** A page to send: bytes in memory, or a range of the book's file that Bun sends from the file. */
export type PageContent =
  | { kind: "bytes"; image: PageImage }
  | { kind: "file"; path: string; offset: number; length: number; mediaType: string };

export class PageService {
  /**
   * Where stored pages lie in their files, by page tag (file version + page + width): a reader
   * paging through a book asks again and again. A file rewritten on disk has another version,
   * so its pages are located anew, never sent from where they lay in the old file.
   */
  private readonly locations = new Map<string, PageLocation | null>();
  /** Reads in progress by cache key: concurrent requests for one page share one rendering. */
  private readonly inFlight = new Map<string, Promise<PageImage>>();
  /** Reads a browser asked for ahead of need (content's `ahead`) under way: at most MAX_READS_AHEAD. */
  private readsAhead = 0;
  /** Pages found empty or undecodable, by page tag: why (their placeholder says it). */
  private readonly unreadable = new Map<string, string>();
  /** Unreadable pages already recorded as book errors (book, page, file version). */
  private readonly recordedProblems = new Map<string, true>();

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
   * The page, or 404 when the book is not visible, `number` is outside 1..pageCount or the file
   * is gone. The file is stat'ed (not opened) for its version: one system call, on every
   * revalidation too. Where the file really lies (links resolved, inside its library:
   * `openableFile`, a walk of the whole path) is checked when the page is read, or here when the
   * plain stat finds no file (for the clear 404).
   */
  async locate(caller: Caller, bookId: string, number: number, width?: number): Promise<PageRef> {
    return this.pageOf(await this.books.fileOf(caller, bookId), number, width);
  }

  /** `locate` in a book already looked up for the caller. */
  private pageOf(book: BookFileView, number: number, width?: number): PageRef {
    if (!Number.isInteger(number) || number < 1 || number > book.pageCount) {
      throw new PageOutOfRange(number, book.pageCount);
    }
    const stat = plainStat(book.filePath) ?? openableFile(book).info;
    const version = pageVersion(book, stat);
    // Bun's one-shot SHA-256 (same digest as node:crypto's, a fifth of its cost per request).
    return { book, number, width, version, stat, tag: Bun.SHA256.hash(`${version}:${number}:${width ?? "original"}`, "hex") };
  }

  /**
   * Gets the book's format ready to be read (7-Zip's WebAssembly, a PDF worker: FormatPlugin.warm)
   * while a person is on the book's page or the reader is starting, instead of on the first page
   * request. Returns at once.
   */
  prepareReading(book: Pick<BookView, "fileFormat">): void {
    this.formats.warm(book.fileFormat);
  }

  /**
   * What to send for the page: a stored page at its original width is a range of the book's
   * file (no bytes pass through the server's memory); anything else is read or rendered.
   * `ahead`: a browser's prefetch (a book's page names the reader's first screen), which nobody
   * waits for. When the page must be read or rendered and another such read is under way, it is
   * declined (null): pages prefetched by someone flicking through books' pages would otherwise
   * queue renders ahead of the one then opened. A declined prefetch costs nothing; the reader
   * asks again.
   */
  async content(page: PageRef, options: { ahead?: boolean } = {}): Promise<PageContent | null> {
    if (page.width === undefined && !this.formats.rendersPages(page.book.fileFormat)) {
      const file = openableFile(page.book, page.stat); // a clear 404 when the file went away since the scan
      const remembered = this.locations.get(page.tag);
      const location = remembered === undefined ? await this.findLocation(page, file) : remembered;
      const problem = this.unreadable.get(page.tag);
      if (problem) return { kind: "bytes", image: await this.placeholder(page, problem) };
      return location ? { kind: "file", path: file.path, ...location } : this.bytes(page, file, options.ahead);
    }
    return this.bytes(page, undefined, options.ahead);
  }

  private async bytes(page: PageRef, file: OpenableFile | undefined, ahead = false): Promise<PageContent | null> {
    const image = await (ahead ? this.readAhead(page, file) : this.read(page, file));
    return image && { kind: "bytes", image };
  }

  /** The page when it is cached or being read, or when no other read ahead is under way; else null (see content). */
  private async readAhead(page: PageRef, file?: OpenableFile): Promise<PageImage | null> {
    const ready = await this.cachedOrRunning(page);
    if (ready) return ready;
    if (this.readsAhead >= MAX_READS_AHEAD) return null;
    this.readsAhead += 1;
    try {
      return await this.readOnce(page, file);
    } finally {
      this.readsAhead -= 1;
    }
  }

  /** Where the page lies in the file, or null when it must be read (compressed): both are remembered, for the version located. */
  private async findLocation(page: PageRef, file: OpenableFile): Promise<PageLocation | null> {
    let location;
    try {
      location = await this.formats.locatePage(file.path, page.number, { formatId: page.book.fileFormat, file: file.info });
    } catch (error) {
      throw readFailure(error);
    }
    // Sent as it lies in the file, the page is never decoded: what is wrong with it shows in its
    // size and first bytes, read once per version of the file (the answer is remembered).
    const problem = location ? await storedPageProblem(file.path, location) : undefined;
    if (problem) this.remember(this.unreadable, page.tag, problem);
    if (sameVersion(page, file)) this.remember(this.locations, page.tag, location);
    return location;
  }

  /** Insertion order makes a Map a simple FIFO bound: the oldest answer goes first. */
  private remember<T>(map: Map<string, T>, tag: string, value: T): void {
    if (map.size >= MAX_REMEMBERED_LOCATIONS) map.delete(map.keys().next().value!);
    map.set(tag, value);
  }

  /**
   * An image saying that page `page.number` cannot be shown and why, in place of the page; the
   * book gets a `page_extraction` error for it unless it has one for that page already.
   */
  private async placeholder(page: PageRef, problem: string): Promise<PageImage> {
    const message = `Page ${page.number} cannot be shown: ${problem}`;
    const key = `${page.book.id}:${page.number}:${page.version}`;
    if (!this.recordedProblems.has(key)) {
      this.remember(this.recordedProblems, key, true);
      // The scan may have recorded it already (an empty entry), or an earlier process.
      const recorded = (await this.repositories.books.errorsOf([page.book.id])).some(
        (error) => error.errorType === "page_extraction" && error.details?.pageNumber === page.number,
      );
      if (!recorded) {
        await this.repositories.catalogue.addBookError(page.book.id, {
          errorType: "page_extraction",
          message,
          details: { pageNumber: page.number, reason: "unreadable_page" },
          occurredAt: new Date(),
        });
      }
    }
    const image = await placeholderImage(message, { width: page.width ?? PLACEHOLDER_WIDTH, height: Math.round((page.width ?? PLACEHOLDER_WIDTH) * 1.5), format: "png" });
    return { bytes: image.bytes, mediaType: image.mediaType };
  }

  /**
   * Starts reading pages a reader is about to ask for (the first screen its page names), so
   * that their requests find them read or being read (the in-flight reads are shared). Returns
   * at once; a failure is left for the page's own request to meet and report. The reads begin
   * once the current work is done: unpacking a CBR or CB7 page runs on this thread, and the
   * reader's page, being answered now, goes out first.
   */
  startReading(caller: Caller, bookId: string, pages: readonly { number: number; width: number | null }[]): void {
    if (pages.length === 0) return;
    const readOne = async (book: BookFileView, page: { number: number; width: number | null }) => this.content(this.pageOf(book, page.number, page.width ?? undefined));
    setImmediate(() => {
      this.books
        .fileOf(caller, bookId)
        .then((book) => {
          // Each page on its own: one that cannot be read (out of range, the file gone) stops no other.
          for (const page of pages) readOne(book, page).catch(() => undefined);
        })
        .catch(() => undefined);
    });
  }

  /** The page's image; `file`: the book's file when the caller has just resolved it. */
  async read(page: PageRef, file?: OpenableFile): Promise<PageImage> {
    return (await this.cachedOrRunning(page)) ?? this.readOnce(page, file);
  }

  /** The page from the page cache, or the read of it under way. */
  private async cachedOrRunning(page: PageRef): Promise<PageImage | undefined> {
    const cached = this.worthCaching(page) ? await this.cache.get(page.tag) : undefined;
    return cached ?? this.inFlight.get(page.tag);
  }

  /** Reads the page from the book, shared with every request for it meanwhile (one that began while the cache was asked is joined). */
  private readOnce(page: PageRef, file?: OpenableFile): Promise<PageImage> {
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
  private async readFromBook(page: PageRef, file: OpenableFile): Promise<PageImage> {
    const { book } = page;
    let image: PageImage;
    try {
      image = await this.formats.readPage(file.path, page.number, { formatId: book.fileFormat, maxWidth: page.width, file: file.info });
    } catch (error) {
      const failure = toBookAnalysisError(error);
      // The page is there but its image cannot be decoded (resizing, rendering): it says so.
      if (failure.type === "page_extraction" && failureReason(failure) === "corrupt") return this.placeholder(page, "the image cannot be decoded");
      throw readFailure(error);
    }
    if (image.bytes.length === 0) return this.placeholder(page, "it is empty (0 bytes)");
    if (this.worthCaching(page) && sameVersion(page, file)) await this.cache.put(page.tag, image);
    return image;
  }

  /** Rendered pages and resized ones cost real work; stored images are read straight from the book. */
  private worthCaching(page: PageRef): boolean {
    return this.cache.enabled && (page.width !== undefined || this.formats.rendersPages(page.book.fileFormat));
  }
}

/** Reads ahead of need under way at once (content's `ahead`): one render or resize, per process. */
const MAX_READS_AHEAD = 1;

/** The width of the image standing in for an unreadable page, when no width was asked for. */
const PLACEHOLDER_WIDTH = 800;

/**
 * What is wrong with a page stored as it lies in the file, judged without decoding it: nothing
 * in it, or first bytes that are no image's although its type says it is one.
 */
async function storedPageProblem(path: string, location: PageLocation): Promise<string | undefined> {
  if (location.length === 0) return "it is empty (0 bytes)";
  if (!SNIFFED_IMAGE_TYPES.has(location.mediaType)) return undefined;
  const head = await Bun.file(path).slice(location.offset, location.offset + Math.min(location.length, 32)).bytes();
  return sniffImageMediaType(head) ? undefined : `its bytes are not a ${location.mediaType} image`;
}

/**
 * What names the pages of the book's file as it is `now`: its version, and the book when that
 * is the file's size and modification time (the scan's hash names the content whichever book
 * holds it, so duplicates share their cached pages; a size and a time do not).
 */
function pageVersion(book: BookFileView, now: FileStamp): string {
  const version = fileVersion(book, now);
  return version === book.fileHash ? version : `${book.id}:${version}`;
}

/**
 * Whether `file`, about to be read, is still the version the page was located in: a file
 * rewritten while a read waited (a page cache lookup in a bucket) or a link re-pointed is then
 * neither remembered nor cached under the old tag. Where content() reuses the located stat (a
 * path with no link, stat'ed an instant before) the two are the same stat and it holds.
 */
function sameVersion(page: PageRef, file: OpenableFile): boolean {
  return pageVersion(page.book, file.info) === page.version;
}

/** The stat of a regular file at `path`; undefined when there is none or it cannot be stat'ed (permissions, a dropped mount). */
function plainStat(path: string): Stats | undefined {
  try {
    const now = statSync(path, { throwIfNoEntry: false });
    return now?.isFile() ? now : undefined;
  } catch {
    return undefined;
  }
}
