/**
 * Each user's reading progress on a book: where they are and whether they finished it. A user
 * only ever sees and changes their own; the book must be visible to them.
 *
 * Comics and PDFs are read page by page, so a page number is their whole position. EPUBs are
 * reflowable: their position is also how far through the book the reader is (`progression`,
 * 0..1) and, depending on the client, a Readium locator (web reader) or a CREngine XPointer
 * (KOReader). Their `page` is then the spine item, so page routes, OPDS `pse:lastRead` and
 * counts keep working for every client. Each write replaces the whole position (last writer wins).
 */
import { invalidFields } from "../errors";
import type { BookView, ProgressRecord, ReadiumLocator, Repositories } from "../db";
import type { FormatRegistry } from "../formats/registry";
import type { ReadingEvents } from "../events/reading-events";
import type { BookService, Caller } from "./books";

export interface ProgressUpdate {
  page?: number;
  completed?: boolean;
  /** EPUB only: 0..1 through the whole book. */
  progression?: number;
  /** EPUB only: the web reader's position. */
  locator?: ReadiumLocator;
  /** EPUB only: KOReader's position. */
  xpointer?: string;
  /** The device that reports the progress (KOReader's name and id for it). */
  device?: string;
  deviceId?: string;
}

/** A stored position stays small: a locator larger than this (as JSON) is refused. */
const MAX_LOCATOR_BYTES = 8192;

type LocatedBook = Pick<BookView, "id" | "seriesId" | "pageCount" | "fileFormat">;

export class ProgressService {
  constructor(
    private readonly repositories: Repositories,
    private readonly books: BookService,
    private readonly formats: FormatRegistry,
    private readonly events: ReadingEvents,
  ) {}

  /** The book and the caller's progress on it (undefined when they have none). */
  async get(caller: Caller, bookId: string): Promise<{ book: BookView; progress: ProgressRecord | undefined }> {
    const book = await this.books.get(caller, bookId);
    return { book, progress: await this.repositories.progress.find(caller.id, book.id) };
  }

  /**
   * Records the caller's progress. `page` must be within 1..pageCount (422 otherwise); it may be
   * left out when `completed` is true, meaning the last page, or, for an EPUB, when
   * `progression` says where the reader is. Reaching the end (the last page, or a progression
   * of 1 for an EPUB) completes the book unless the update says otherwise.
   */
  async save(caller: Caller, bookId: string, update: ProgressUpdate): Promise<{ book: BookView; progress: ProgressRecord }> {
    const book = await this.books.get(caller, bookId);
    return { book, progress: await this.record(caller, book, update) };
  }

  /**
   * The same for a book the caller already located (and so may see): a reader fetching a page
   * through OPDS page streaming, or KOReader naming a book by its document id.
   */
  async record(caller: Caller, book: LocatedBook, update: ProgressUpdate): Promise<ProgressRecord> {
    const reflowable = this.formats.readsAsPublication(book.fileFormat);
    if (!reflowable) {
      for (const field of ["progression", "locator", "xpointer"] as const) {
        if (update[field] !== undefined) throw invalidFields("UnprocessableEntity", { [field]: "is only recorded for EPUB books" });
      }
    }
    if (update.locator && Buffer.byteLength(JSON.stringify(update.locator)) > MAX_LOCATOR_BYTES) {
      throw invalidFields("UnprocessableEntity", { locator: `must be at most ${MAX_LOCATOR_BYTES} bytes as JSON` });
    }
    const progression = update.progression ?? null;
    if (progression !== null && !(progression >= 0 && progression <= 1)) {
      throw invalidFields("UnprocessableEntity", { progression: "must be between 0 and 1" });
    }
    const page = update.page ?? (update.completed ? book.pageCount : progression !== null ? pageAt(progression, book.pageCount) : undefined);
    if (page === undefined) throw invalidFields("UnprocessableEntity", { page: "is required unless completed is true or progression is given" });
    if (page < 1 || page > book.pageCount) {
      throw invalidFields("UnprocessableEntity", {
        page: book.pageCount > 0 ? `must be between 1 and ${book.pageCount}` : "cannot be recorded: the book has no pages",
      });
    }
    const completed = update.completed ?? (progression !== null ? progression >= 1 : page === book.pageCount);
    const saved = await this.repositories.progress.save(caller.id, book.id, {
      page,
      completed,
      progression,
      locator: update.locator ?? null,
      xpointer: update.xpointer ?? null,
      device: update.device ?? null,
      deviceId: update.deviceId ?? null,
    });
    this.events.publish({ kind: "saved", userId: caller.id, bookId: book.id, seriesId: book.seriesId });
    return saved;
  }

  /**
   * "Mark as read" (completed, on the last page) or "mark as unread" (no progress at all) for
   * books the caller may see, all of them or none (a book without pages cannot be read, so it is
   * left as it is); answers how many were marked.
   */
  async markRead(caller: Caller, books: Pick<BookView, "id" | "seriesId" | "pageCount">[], read: boolean): Promise<number> {
    const marked = read ? books.filter((book) => book.pageCount > 0) : books;
    await this.repositories.progress.markMany(caller.id, new Map(marked.map((book) => [book.id, book.pageCount])), read);
    for (const book of marked) this.events.publish({ kind: read ? "saved" : "deleted", userId: caller.id, bookId: book.id, seriesId: book.seriesId });
    return marked.length;
  }

  /** Forgets the caller's progress on the book (nothing happens when there was none). */
  async delete(caller: Caller, bookId: string): Promise<void> {
    const book = await this.books.get(caller, bookId);
    await this.repositories.progress.delete(caller.id, book.id);
    this.events.publish({ kind: "deleted", userId: caller.id, bookId: book.id, seriesId: book.seriesId });
  }
}

/** The page (spine item) a progression through the whole book falls on, counting pages as equal parts. */
function pageAt(progression: number, pageCount: number): number {
  return Math.min(pageCount, Math.floor(progression * pageCount) + 1);
}

/**
 * How far through the book a progress record is, in percent: 100 when completed, else the
 * recorded progression (EPUB), else page / pageCount; one decimal.
 */
export function progressPercentage(progress: Pick<ProgressRecord, "page" | "completed" | "progression">, pageCount: number): number {
  if (progress.completed) return 100;
  const fraction = progress.progression ?? (pageCount > 0 ? progress.page / pageCount : 0);
  return Math.round(fraction * 1000) / 10;
}
