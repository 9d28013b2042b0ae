/**
 * Each user's reading progress on a book: where they are and whether they finished it. A user
 * only ever sees and changes their own; the book must be visible to them.
 */
import { invalidFields } from "../errors";
import type { BookView, ProgressRecord, Repositories } from "../db";
import type { BookService, Caller } from "./books";

export interface ProgressUpdate {
  page?: number;
  completed?: boolean;
}

export class ProgressService {
  constructor(
    private readonly repositories: Repositories,
    private readonly books: BookService,
  ) {}

  /** The book and the caller's progress on it (undefined when they have none). */
  async get(caller: Caller, bookId: string): Promise<{ book: BookView; progress: ProgressRecord | undefined }> {
    const book = await this.books.get(caller, bookId);
    return { book, progress: await this.repositories.progress.find(caller.id, book.id) };
  }

  /**
   * Records the caller's progress. `page` must be within 1..pageCount (422 otherwise); it may be
   * left out when `completed` is true, meaning the last page. Reaching the last page without
   * saying otherwise completes the book.
   */
  async save(caller: Caller, bookId: string, update: ProgressUpdate): Promise<{ book: BookView; progress: ProgressRecord }> {
    const book = await this.books.get(caller, bookId);
    return { book, progress: await this.record(caller, book, update) };
  }

  /**
   * The same for a book the caller already located (and so may see): a reader fetching a page
   * through OPDS page streaming records it without the book being looked up again.
   */
  async record(caller: Caller, book: Pick<BookView, "id" | "pageCount">, update: ProgressUpdate): Promise<ProgressRecord> {
    const page = update.page ?? (update.completed ? book.pageCount : undefined);
    if (page === undefined) throw invalidFields("UnprocessableEntity", { page: "is required unless completed is true" });
    if (page < 1 || page > book.pageCount) {
      throw invalidFields("UnprocessableEntity", {
        page: book.pageCount > 0 ? `must be between 1 and ${book.pageCount}` : "cannot be recorded: the book has no pages",
      });
    }
    const completed = update.completed ?? page === book.pageCount;
    return this.repositories.progress.save(caller.id, book.id, { page, completed });
  }

  /** "Mark as read" (completed, on the last page) or "mark as unread" (no progress at all) for books the caller may see. */
  async markRead(caller: Caller, books: Pick<BookView, "id" | "pageCount">[], read: boolean): Promise<void> {
    for (const book of books) {
      if (!read) await this.repositories.progress.delete(caller.id, book.id);
      else if (book.pageCount > 0) await this.repositories.progress.save(caller.id, book.id, { page: book.pageCount, completed: true });
    }
  }

  /** Forgets the caller's progress on the book (nothing happens when there was none). */
  async delete(caller: Caller, bookId: string): Promise<void> {
    const book = await this.books.get(caller, bookId);
    await this.repositories.progress.delete(caller.id, book.id);
  }
}
