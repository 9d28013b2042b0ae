/**
 * KOReader progress sync (kosync) on top of Longbox's own read progress: one position per user
 * and book, whichever client wrote it.
 *
 * KOReader names a book by its document id (./koreader-document-id.ts, or the MD5 of its file
 * name) and describes a position with a `percentage` (0..1) and a `progress` string: the page
 * number for paged documents (comics, PDF) and a CREngine XPointer for reflowable ones (EPUB),
 * e.g. `/body/DocFragment[10]/body/div/p[1]/text().0`, where DocFragment[k] is the k-th spine
 * item. Pushed positions become read progress (an EPUB's XPointer is kept and given back as it
 * was pushed); progress written elsewhere is described to KOReader the same way.
 *
 * Only books the caller may see, and that have pages, are found: a hidden or unreadable book is
 * unknown here. When one document id names several such books (the same file in two
 * libraries), a push records the position on each of them and a pull answers the most recent.
 *
 * A document that names no visible book is kept as the official kosync server keeps any: the
 * position is stored per user and document id (unmatched progress) and pulled back as pushed,
 * so a device's books that Longbox does not have never raise sync errors. Once a visible book
 * has that id (catalogued later, or made visible), the next pull or push of the document takes
 * the stored position over: a pull records it as the book's read progress unless the book has
 * newer progress (last writer wins), a push supersedes it; either way it is then dropped.
 */
import type { BookView, ProgressRecord, Repositories, UnmatchedKoreaderRecord } from "../db";
import { DomainError } from "../errors";
import type { FormatRegistry } from "../formats/registry";
import type { BookService, Caller } from "./books";
import type { ProgressService, ProgressUpdate } from "./progress";

/** A position as kosync carries it. */
export interface KoreaderPosition {
  percentage: number;
  progress: string;
  device: string;
  deviceId: string;
}

export interface KoreaderRecordedPosition extends KoreaderPosition {
  /** The server's time of the write, in whole seconds since the epoch. */
  timestamp: number;
}

/** How progress written by Longbox's own clients names its device to KOReader. */
const LONGBOX_DEVICE = "Longbox";
/** More books than this under one document id is not a real library; the rest are ignored. */
const MAX_BOOKS_PER_DOCUMENT = 20;
/** Bounds what one account can store for unknown documents; its least recently pushed go first. */
const MAX_UNMATCHED_PER_USER = 5000;

export class KoreaderSyncService {
  constructor(
    private readonly repositories: Repositories,
    private readonly books: BookService,
    private readonly progress: ProgressService,
    private readonly formats: FormatRegistry,
  ) {}

  /** The caller's position in the document; null when they have none there. */
  async pull(caller: Caller, document: string): Promise<KoreaderRecordedPosition | null> {
    let books = await this.booksNamed(caller, document);
    const unmatched = await this.repositories.unmatchedKoreaderProgress.find(caller.id, document);
    if (unmatched) {
      if (books.length === 0 || !(await this.adopt(caller, document, books, unmatched))) {
        return { ...unmatched, timestamp: epochSeconds(unmatched.updatedAt) };
      }
      books = await this.booksNamed(caller, document);
    }
    let latest: { book: BookView; progress: ProgressRecord } | undefined;
    for (const book of books) {
      if (book.progress && (!latest || book.progress.updatedAt > latest.progress.updatedAt)) latest = { book, progress: book.progress };
    }
    return latest ? this.describe(latest.book, latest.progress) : null;
  }

  /** Records the position on the books the document id names, or for the document alone when none is visible. */
  async push(caller: Caller, document: string, position: KoreaderPosition): Promise<{ timestamp: number }> {
    const books = await this.booksNamed(caller, document);
    if (books.length === 0) {
      const stored = await this.repositories.unmatchedKoreaderProgress.save(caller.id, document, position, MAX_UNMATCHED_PER_USER);
      return { timestamp: epochSeconds(stored.updatedAt) };
    }
    let recorded: ProgressRecord | undefined;
    for (const book of books) recorded = await this.progress.record(caller, book, this.toUpdate(book, position));
    // Whatever was pushed before the book was known is older than this.
    await this.repositories.unmatchedKoreaderProgress.delete(caller.id, document);
    return { timestamp: epochSeconds(recorded!.updatedAt) };
  }

  /**
   * Takes a position pushed while no visible book had this id over as the books' read progress
   * and drops it, or just drops it when one of the books has newer progress (last writer wins).
   * False when a book refuses the position (say, it has no pages): it stays stored, and is
   * still what the device pulls.
   */
  private async adopt(caller: Caller, document: string, books: BookView[], stored: UnmatchedKoreaderRecord): Promise<boolean> {
    const newerThere = books.some((book) => book.progress && book.progress.updatedAt >= stored.updatedAt);
    if (!newerThere) {
      try {
        for (const book of books) await this.progress.record(caller, book, this.toUpdate(book, stored));
      } catch (error) {
        if (error instanceof DomainError) return false;
        throw error;
      }
    }
    await this.repositories.unmatchedKoreaderProgress.delete(caller.id, document);
    return true;
  }

  /**
   * The visible books with this document id that can hold a position: a book without pages (an
   * unreadable file byte-identical to a readable one, say) never can, so it is no book of the
   * document here; a document naming only such books is kept as an unmatched one.
   */
  private async booksNamed(caller: Caller, document: string): Promise<BookView[]> {
    const found = await this.books.list(caller, { deleted: false, koreaderDocument: document }, { offset: 0, limit: MAX_BOOKS_PER_DOCUMENT });
    return found.rows.filter((book) => book.pageCount > 0);
  }

  private toUpdate(book: BookView, position: KoreaderPosition): ProgressUpdate {
    const device = { device: position.device, deviceId: position.deviceId };
    const percentage = Math.min(1, Math.max(0, position.percentage));
    if (this.formats.readsAsPublication(book.fileFormat)) {
      const fragment = spineItemOf(position.progress);
      const page = fragment !== undefined && fragment <= book.pageCount ? fragment : undefined;
      return { page, progression: percentage, xpointer: position.progress, ...device };
    }
    const pushed = /^\d+$/.test(position.progress.trim()) ? Number(position.progress.trim()) : undefined;
    // A page number outside the book (KOReader counted pages differently) falls back on the percentage.
    const page = pushed !== undefined && pushed >= 1 && pushed <= book.pageCount ? pushed : Math.max(1, Math.round(percentage * book.pageCount));
    return { page, ...device };
  }

  private describe(book: BookView, progress: ProgressRecord): KoreaderRecordedPosition {
    const reflowable = this.formats.readsAsPublication(book.fileFormat);
    // Completed wins, as in progressPercentage (./progress.ts): the REST API then says 100% too.
    const fraction = progress.completed ? 1 : (progress.progression ?? (book.pageCount > 0 ? progress.page / book.pageCount : 0));
    return {
      percentage: fraction,
      progress: reflowable ? (progress.xpointer ?? `/body/DocFragment[${progress.page}].0`) : String(progress.page),
      device: progress.device ?? LONGBOX_DEVICE,
      deviceId: progress.deviceId ?? "",
      timestamp: epochSeconds(progress.updatedAt),
    };
  }
}

/** The spine item (1-based) an XPointer points into: k in its leading `/body/DocFragment[k]`. */
function spineItemOf(xpointer: string): number | undefined {
  const match = /^\/body\/DocFragment\[(\d+)\]/.exec(xpointer);
  const index = match ? Number(match[1]) : 0;
  return index >= 1 ? index : undefined;
}

const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
