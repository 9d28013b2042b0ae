/**
 * Books as callers see them: always through the caller's sharing-tag visibility (a hidden
 * book does not exist), with the caller's own progress. Also re-analysis of one book,
 * permanent deletion of a soft-deleted one, and analysis errors grouped by type.
 */
import type { BookEdit, BookErrorView, BookFileView, BookFilter, BookSort, BookView, Repositories, UserRecord } from "../db";
import { DomainError, notFound } from "../errors";
import { editedLists } from "./catalogue-metadata";
import type { AccessService } from "../access/visibility";
import { BOOK_ERROR_TYPES, type BookErrorType } from "../formats/contract";
import type { LibraryScanner } from "./scanner";
import type { ThumbnailQueue } from "./thumbnails";

export type Caller = Pick<UserRecord, "id" | "role">;

export const ERROR_TYPE_LABELS: Record<BookErrorType, string> = {
  format_detection: "Unrecognised file format",
  parser: "File could not be parsed",
  metadata: "Invalid metadata",
  thumbnail: "Thumbnail could not be made",
  page_extraction: "Page could not be extracted",
  pdf_rendering: "PDF page could not be rendered",
  zero_pages: "No pages found",
  other: "Other error",
};

export interface ErrorGroup {
  errorType: string;
  label: string;
  count: number;
  books: { book: BookView; errors: BookErrorView[] }[];
}

export class BookService {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
    private readonly scanner: LibraryScanner,
    private readonly thumbnails: ThumbnailQueue,
  ) {}

  async list(
    caller: Caller,
    filter: Omit<BookFilter, "seriesVisible">,
    page: { offset: number; limit: number },
    sort?: { field: BookSort; direction: "asc" | "desc" },
  ): Promise<{ rows: BookView[]; total: number }> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    return this.repositories.books.find({ ...filter, seriesVisible }, caller.id, page, sort);
  }

  /** Present books, the most recently catalogued first. */
  recentlyAdded(caller: Caller, page: { offset: number; limit: number }): Promise<{ rows: BookView[]; total: number }> {
    return this.list(caller, { deleted: false }, page, { field: "createdAt", direction: "desc" });
  }

  /** Present books the caller has started and not completed, the most recently read first. */
  continueReading(caller: Caller, page: { offset: number; limit: number }): Promise<{ rows: BookView[]; total: number }> {
    return this.list(caller, { deleted: false, inProgressFor: caller.id }, page, { field: "lastRead", direction: "desc" });
  }

  /** Present books the caller has completed, the most recently read first. */
  recentlyRead(caller: Caller, page: { offset: number; limit: number }): Promise<{ rows: BookView[]; total: number }> {
    return this.list(caller, { deleted: false, readStatus: { userId: caller.id, statuses: ["READ"] } }, page, { field: "lastRead", direction: "desc" });
  }

  /** The book, or 404 when it does not exist or the caller may not see it. */
  async get(caller: Caller, id: string): Promise<BookView> {
    const book = await this.repositories.books.findOne(id, caller.id, await this.access.seriesVisibility(caller));
    if (!book) throw notFound("book");
    return book;
  }

  /** The little that serving pages needs (one small query), or 404 as `get` would answer. */
  async fileOf(caller: Caller, id: string): Promise<BookFileView> {
    const book = await this.repositories.books.fileOf(id, this.access.viewerFilter(caller));
    if (!book) throw notFound("book");
    return book;
  }

  /**
   * Changes book fields (admin) and locks them against later scans. The number is also the
   * book's sort number, so setting one sets the other; the series' order (and the fields it
   * takes from its first books) follows.
   */
  async edit(caller: Caller, id: string, edit: Omit<BookEdit, "numberSort">): Promise<BookView> {
    await this.scanner.settleSeries([await this.editUnsettled(caller, id, edit)]);
    return this.get(caller, id);
  }

  /**
   * Edits (as `edit`) books that may share series, each series settled once after all of them
   * (a bulk edit of a series' books orders the series once, not once per book). Run it inside a
   * transaction (edits.together) for all or nothing.
   */
  async editMany(caller: Caller, ids: readonly string[], edit: Omit<BookEdit, "numberSort">): Promise<void> {
    const series = new Set<string>();
    for (const id of ids) series.add(await this.editUnsettled(caller, id, edit));
    await this.scanner.settleSeries([...series]);
  }

  /** The edit itself, its series left for the caller to settle: answers the book's series. */
  private async editUnsettled(caller: Caller, id: string, edit: Omit<BookEdit, "numberSort">): Promise<string> {
    const book = await this.get(caller, id);
    const withSortNumber: BookEdit = { ...(edit.number !== undefined ? { ...edit, numberSort: edit.number } : edit), ...editedLists(edit) };
    if (!(await this.repositories.edits.editBook(id, withSortNumber))) throw notFound("book");
    return book.seriesId;
  }

  /**
   * Unlocks fields (admin): they keep their value until a scan reads the book's file again (a
   * deep scan, a re-analysis, a changed file). The number takes its sort number with it, as in `edit`.
   */
  async unlock(caller: Caller, id: string, fields: readonly Exclude<keyof BookEdit, "numberSort">[]): Promise<BookView> {
    await this.get(caller, id);
    const unlocked: (keyof BookEdit)[] = fields.includes("number") ? [...fields, "numberSort"] : [...fields];
    if (!(await this.repositories.edits.unlock("book", id, unlocked))) throw notFound("book");
    return this.get(caller, id);
  }

  /** Re-reads the book's file and replaces its analysis (admin). */
  async reanalyze(caller: Caller, id: string): Promise<BookView> {
    const book = await this.get(caller, id);
    if (book.deleted) throw new DomainError("Conflict", "the book is soft-deleted: its file is gone");
    const library = await this.repositories.libraries.findById(book.libraryId);
    if (!library) throw notFound("library");
    await this.scanner.reanalyze(library, book.id, book.filePath);
    this.thumbnails.enqueue(book.id);
    return this.get(caller, id);
  }

  /** Permanent deletion (admin) of a soft-deleted book; 409 while its file is present. */
  async purge(caller: Caller, id: string): Promise<void> {
    const book = await this.get(caller, id);
    if (!book.deleted) throw new DomainError("Conflict", "only soft-deleted books can be deleted permanently");
    await this.repositories.catalogue.purgeBook(id);
  }

  /** The book's current analysis errors (404 as `get` would answer). */
  async errorsOf(caller: Caller, id: string): Promise<BookErrorView[]> {
    const book = await this.get(caller, id);
    return this.repositories.books.errorsOf([book.id]);
  }

  async errorGroups(
    caller: Caller,
    filter: { libraryId?: string; errorType?: string },
    page: { offset: number; limit: number },
  ): Promise<{ totalBooksWithErrors: number; groups: (ErrorGroup & { total: number })[] }> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    const base: BookFilter = { libraryId: filter.libraryId, deleted: false, seriesVisible };
    const counts = await this.repositories.books.errorCounts({ ...base, errorType: filter.errorType });
    const groups = [];
    for (const { errorType, count } of counts) {
      const ids = await this.repositories.books.bookIdsWithError(base, errorType, page);
      const rows = await this.repositories.books.named({ ...base, ids }, caller.id);
      const errors = await this.repositories.books.errorsOf(ids);
      const byId = new Map(rows.map((book) => [book.id, book]));
      groups.push({
        errorType,
        label: labelOf(errorType),
        count,
        total: count,
        books: ids.flatMap((bookId) => {
          const book = byId.get(bookId);
          return book ? [{ book, errors: errors.filter((error) => error.bookId === bookId) }] : [];
        }),
      });
    }
    const totalBooksWithErrors = await this.repositories.books.countBooksWithErrors(base);
    return { totalBooksWithErrors, groups };
  }
}

function labelOf(errorType: string): string {
  return (BOOK_ERROR_TYPES as readonly string[]).includes(errorType) ? ERROR_TYPE_LABELS[errorType as BookErrorType] : errorType;
}
