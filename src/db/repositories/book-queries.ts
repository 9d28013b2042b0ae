/**
 * Reads of books as the API shows them: joined with their library and series names, the
 * effective reading direction, and the caller's progress. Filters narrow by ids, library,
 * series, deletion state and visibility (sharing tags) so every surface shares one query.
 */
import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../database";
import type { BookRow, PageRecord } from "./catalogue";
import type { ReadingDirection } from "./libraries";
import { bytewise } from "./ordering";
import { containsIgnoringCase, containsLowerCased } from "./text-search";

/** A book as the API shows it: its row, where it belongs, how to read it, the caller's progress. */
export interface BookView extends BookRow {
  libraryName: string;
  seriesName: string;
  /** Effective: the series' direction, else the library default. */
  readingDirection: ReadingDirection | null;
  progress: { page: number; completed: boolean; updatedAt: Date } | null;
}

export interface BookFilter {
  ids?: string[];
  libraryId?: string;
  seriesId?: string;
  /** true: only soft-deleted; false: only present; undefined: both. */
  deleted?: boolean;
  /** Text anywhere in the title, the series name or an author's name, ignoring case. */
  q?: string;
  /** Extra condition on the series (sharing-tag visibility), built by the access repository. */
  seriesVisible?: SQL | undefined;
  /** Only books this user has started and not completed ("continue reading"). */
  inProgressFor?: string;
}

/** `lastRead`: by the caller's progress time, books without progress last. */
export type BookSort = "series" | "title" | "createdAt" | "number" | "lastRead";

/** What ordering a series' books naturally needs (see BookService.seriesBooks). */
export interface BookOrderKey {
  id: string;
  numberSort: number | null;
  title: string;
  titleSort: string | null;
}

export interface BookErrorView {
  bookId: string;
  errorType: string;
  message: string;
  details: Record<string, unknown> | null;
  occurredAt: Date;
}

/** The fields of a book that reading its pages or its file needs. */
export interface BookFileView {
  id: string;
  filePath: string;
  fileFormat: string;
  fileHash: string;
  pageCount: number;
  /** The book's library folder: the file must resolve inside it to be served. */
  libraryPath: string;
}

interface BookViewRow {
  book: BookRow;
  libraryName: string;
  libraryDirection: ReadingDirection;
  seriesName: string;
  seriesDirection: ReadingDirection | null;
  progressPage: number | null;
  progressCompleted: boolean | null;
  progressUpdatedAt: Date | null;
}

function toBookView(row: BookViewRow): BookView {
  return {
    ...row.book,
    libraryName: row.libraryName,
    seriesName: row.seriesName,
    readingDirection: row.seriesDirection ?? row.libraryDirection,
    progress:
      row.progressPage !== null && row.progressCompleted !== null && row.progressUpdatedAt !== null
        ? { page: row.progressPage, completed: row.progressCompleted, updatedAt: row.progressUpdatedAt }
        : null,
  };
}

export class BookQueryRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async find(
    filter: BookFilter,
    userId: string | null,
    page: { offset: number; limit: number },
    sort: { field: BookSort; direction: "asc" | "desc" } = { field: "series", direction: "asc" },
  ): Promise<{ rows: BookView[]; total: number }> {
    const { books, series, readProgress } = this.database.tables;
    const where = this.conditions(filter);
    const order = sort.direction === "desc" ? desc : asc;
    // Both databases must agree: titles compare lower-cased (PostgreSQL collations and SQLite's
    // binary order differ on case), and books without a number come last (PostgreSQL sorts NULL
    // last, SQLite first).
    const title = bytewise(this.database, sql`lower(${books.title})`);
    const unnumberedLast = asc(sql`${books.numberSort} is null`);
    const orderBy =
      sort.field === "title"
        ? [order(title), asc(books.id)]
        : sort.field === "createdAt"
          ? [order(books.createdAt), asc(books.id)]
          : sort.field === "number"
            ? [unnumberedLast, order(books.numberSort), order(title), asc(books.id)]
            : sort.field === "lastRead"
              ? [asc(sql`${readProgress.updatedAt} is null`), order(readProgress.updatedAt), asc(books.id)]
              : // The stored order keys, which books_list_order_idx serves (no sort of the whole catalogue).
                [order(books.orderSeries), order(books.orderNumber), order(books.orderTitle), order(books.id)];
    // Two steps: sort and cut the page on narrow rows (ids and sort keys), then read the full
    // rows (metadata JSON included) of just that page. Sorting wide rows of a 10,000-book
    // library was most of a list request's time.
    const progressJoin = userId ? and(eq(readProgress.bookId, books.id), eq(readProgress.userId, userId)) : sql`false`;
    const pageIds = (
      await this.db
        .select({ id: books.id })
        .from(books)
        .innerJoin(series, eq(series.id, books.seriesId))
        .leftJoin(readProgress, progressJoin)
        .where(where)
        .orderBy(...orderBy)
        .limit(page.limit)
        .offset(page.offset)
    ).map((row) => row.id);
    const rows = pageIds.length === 0 ? [] : await this.selectViews(inArray(books.id, pageIds), userId);
    const position = new Map(pageIds.map((id, index) => [id, index]));
    rows.sort((a, b) => position.get(a.book.id)! - position.get(b.book.id)!);
    // The series join is needed for counting only when a condition looks at the series.
    const countQuery = this.db.select({ n: count() }).from(books);
    const [totalRow] = await (filter.q || filter.seriesVisible
      ? countQuery.innerJoin(series, eq(series.id, books.seriesId)).where(where)
      : countQuery.where(where));
    return { total: totalRow?.n ?? 0, rows: rows.map(toBookView) };
  }

  async findOne(id: string, userId: string | null, seriesVisible?: SQL): Promise<BookView | undefined> {
    const [row] = await this.selectViews(this.conditions({ ids: [id], seriesVisible }), userId).limit(1);
    return row ? toBookView(row) : undefined;
  }

  /**
   * Just what serving a page or the file needs, in one small query (the hot path of readers):
   * the book if it exists and its series is visible.
   */
  async fileOf(id: string, seriesVisible?: SQL): Promise<BookFileView | undefined> {
    const { books, series, libraries } = this.database.tables;
    const [row] = await this.db
      .select({
        id: books.id,
        filePath: books.filePath,
        fileFormat: books.fileFormat,
        fileHash: books.fileHash,
        pageCount: books.pageCount,
        libraryPath: libraries.path,
      })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .innerJoin(libraries, eq(libraries.id, books.libraryId))
      .where(and(eq(books.id, id), seriesVisible))
      .limit(1);
    return row;
  }

  private selectViews(where: SQL | undefined, userId: string | null) {
    const { books, libraries, series, readProgress } = this.database.tables;
    const progressJoin = userId ? and(eq(readProgress.bookId, books.id), eq(readProgress.userId, userId)) : sql`false`;
    return this.db
      .select({
        book: books,
        libraryName: libraries.name,
        libraryDirection: libraries.defaultReadingDirection,
        seriesName: series.name,
        seriesDirection: series.readingDirection,
        progressPage: readProgress.page,
        progressCompleted: readProgress.completed,
        progressUpdatedAt: readProgress.updatedAt,
      })
      .from(books)
      .innerJoin(libraries, eq(libraries.id, books.libraryId))
      .innerJoin(series, eq(series.id, books.seriesId))
      .leftJoin(readProgress, progressJoin)
      .where(where)
      .$dynamic();
  }

  /** Per error type: how many (visible, present) books carry at least one error of it. */
  async errorCounts(filter: BookFilter & { errorType?: string }): Promise<{ errorType: string; count: number }[]> {
    const { books, bookErrors, series } = this.database.tables;
    const rows = await this.db
      .select({ errorType: bookErrors.errorType, count: sql<number>`count(distinct ${bookErrors.bookId})` })
      .from(bookErrors)
      .innerJoin(books, eq(books.id, bookErrors.bookId))
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(and(this.conditions(filter), filter.errorType ? eq(bookErrors.errorType, filter.errorType) : undefined))
      .groupBy(bookErrors.errorType)
      .orderBy(asc(bookErrors.errorType));
    return rows.map((row) => ({ errorType: row.errorType, count: Number(row.count) }));
  }

  async countBooksWithErrors(filter: BookFilter): Promise<number> {
    const { books, bookErrors, series } = this.database.tables;
    const [row] = await this.db
      .select({ n: sql<number>`count(distinct ${bookErrors.bookId})` })
      .from(bookErrors)
      .innerJoin(books, eq(books.id, bookErrors.bookId))
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(this.conditions(filter));
    return Number(row?.n ?? 0);
  }

  /** Ids of the books with an error of this type, one page of them, in title order. */
  async bookIdsWithError(filter: BookFilter, errorType: string, page: { offset: number; limit: number }): Promise<string[]> {
    const { books, bookErrors, series } = this.database.tables;
    const rows = await this.db
      .selectDistinct({ id: books.id, title: books.title })
      .from(books)
      .innerJoin(bookErrors, eq(bookErrors.bookId, books.id))
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(and(this.conditions(filter), eq(bookErrors.errorType, errorType)))
      .orderBy(asc(books.title), asc(books.id))
      .limit(page.limit)
      .offset(page.offset);
    return rows.map((row) => row.id);
  }

  async errorsOf(bookIds: string[]): Promise<BookErrorView[]> {
    if (bookIds.length === 0) return [];
    const e = this.database.tables.bookErrors;
    return this.db
      .select({ bookId: e.bookId, errorType: e.errorType, message: e.message, details: e.details, occurredAt: e.occurredAt })
      .from(e)
      .where(inArray(e.bookId, bookIds))
      .orderBy(asc(e.occurredAt), asc(e.id));
  }

  /** Every book matching the filter with the fields that order it, unpaged (one series' worth). */
  async orderKeys(filter: BookFilter): Promise<BookOrderKey[]> {
    const { books, series } = this.database.tables;
    return this.db
      .select({ id: books.id, numberSort: books.numberSort, title: books.title, titleSort: books.titleSort })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(this.conditions(filter));
  }

  /** The stored pages of a book, in reading order. */
  async pages(bookId: string): Promise<PageRecord[]> {
    const p = this.database.tables.bookPages;
    return this.db
      .select({ number: p.number, fileName: p.fileName, mediaType: p.mediaType, width: p.width, height: p.height, size: p.size })
      .from(p)
      .where(eq(p.bookId, bookId))
      .orderBy(asc(p.number));
  }

  /** Which of these books have a page that is not an image (the spine documents of a reflowable EPUB). */
  async withNonImagePages(bookIds: string[]): Promise<Set<string>> {
    if (bookIds.length === 0) return new Set();
    const p = this.database.tables.bookPages;
    const rows = await this.db
      .selectDistinct({ bookId: p.bookId })
      .from(p)
      .where(and(inArray(p.bookId, bookIds), sql`${p.mediaType} not like 'image/%'`));
    return new Set(rows.map((row) => row.bookId));
  }

  /** Conditions on books joined with their series (every query here joins it). */
  private conditions(filter: BookFilter): SQL | undefined {
    const { books, series, readProgress } = this.database.tables;
    return and(
      filter.ids ? inArray(books.id, filter.ids) : undefined,
      filter.libraryId ? eq(books.libraryId, filter.libraryId) : undefined,
      filter.seriesId ? eq(books.seriesId, filter.seriesId) : undefined,
      filter.deleted === undefined ? undefined : eq(books.deleted, filter.deleted),
      filter.q ? or(containsLowerCased(books.searchText, filter.q), containsIgnoringCase(series.name, filter.q)) : undefined,
      filter.seriesVisible,
      filter.inProgressFor
        ? inArray(
            books.id,
            this.db
              .select({ id: readProgress.bookId })
              .from(readProgress)
              .where(and(eq(readProgress.userId, filter.inProgressFor), eq(readProgress.completed, false))),
          )
        : undefined,
    );
  }
}
