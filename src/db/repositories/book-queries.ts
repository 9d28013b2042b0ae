/**
 * Reads of books as the API shows them: joined with their library and series names, the
 * effective reading direction, and the caller's progress. Filters narrow by ids, library,
 * series, deletion state and visibility (sharing tags) so every surface shares one query.
 */
import { and, asc, count, desc, eq, gte, inArray, lte, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../database";
import { bookConditionSql, numberOrPosition, releaseDateKey, type BookCondition } from "./condition-trees";
import type { AccessRepository } from "./access";
import type { BookRow, PageRecord } from "./catalogue";
import type { ReadingDirection } from "./libraries";
import { bytewise } from "./ordering";
import { progressColumns, type ProgressRecord } from "./progress";
import { preparedOnce } from "./prepared";
import { RecentReads } from "./recent-reads";
import { bookTextCandidates, containsIgnoringCase, containsLowerCased } from "./text-search";
import { analysisIs, bookAgeAtMost, bookReadStatus, inYears, metadataMatches, type MetadataFilter, type ReadStatusFilter, type YearRange } from "./catalogue-filters";

/** A book as the API shows it: its row, where it belongs, how to read it, the caller's progress. */
export interface BookView extends BookRow {
  libraryName: string;
  seriesName: string;
  /** Effective: the series' direction, else the library default. */
  readingDirection: ReadingDirection | null;
  progress: ProgressRecord | null;
}

export interface BookFilter {
  ids?: string[];
  libraryId?: string;
  seriesId?: string;
  /** In any of these libraries / series. */
  libraryIds?: string[];
  seriesIds?: string[];
  /** The user's read status of the book is one of these. */
  readStatus?: ReadStatusFilter;
  /** The analysis state is one of these (see AnalysisState). */
  analysis?: AnalysisState[];
  /** Genres, tags, authors in the book's metadata. */
  metadata?: MetadataFilter;
  /** Released in these years (both ends included; either may be left open). */
  years?: YearRange;
  /** Rated for readers of at most this age (unrated books are left out). */
  maxAgeRating?: number;
  /** true: only soft-deleted; false: only present; undefined: both. */
  deleted?: boolean;
  /** Text anywhere in the title, the series name or an author's name, ignoring case. */
  q?: string;
  /** Extra condition on the series (sharing-tag visibility), built by the access repository. */
  seriesVisible?: SQL | undefined;
  /** Only books this user has started and not completed ("continue reading"; see progressStarted). */
  inProgressFor?: string;
  /** Only books KOReader knows by this document id (partial MD5 or file-name MD5). */
  koreaderDocument?: string;
  /** Any tree of conditions on the book (the Komga API's searches). */
  condition?: BookCondition;
}

/**
 * Whether a book can be read: "ready" when analysis found pages (non-fatal problems such as bad
 * metadata do not count), "error" when it found none and recorded why, "pending" otherwise.
 */
export type AnalysisState = "ready" | "error" | "pending";

/**
 * `lastRead`: by the caller's progress time, books without progress last; `releaseDate`: by
 * year, month and day of the metadata, books without a year last; `number`: by the book's own
 * number, unnumbered books last; `numberOrPosition`: by the number the book is shown with (its
 * own, else its place in its series, as the Komga API shows it; see numberOrPosition);
 * `seriesPosition`: a series' reading order (see inSeriesOrder).
 */
export type BookSort = "series" | "title" | "createdAt" | "number" | "numberOrPosition" | "lastRead" | "releaseDate" | "seriesPosition";

/**
 * A series' reading order: the books' stored places (`series_position`, kept by SeriesSettlement
 * from src/library/series-order.ts; served by books_series_position_idx), then the books a scan
 * has not placed yet (until it ends) by their default order keys.
 */
function inSeriesOrder(database: Database, order: typeof asc): SQL[] {
  const { books } = database.tables;
  return [asc(sql`${books.seriesPosition} is null`), order(books.seriesPosition), order(books.orderNumber), order(books.orderTitle), order(books.id)];
}

export interface BookErrorView {
  bookId: string;
  errorType: string;
  message: string;
  details: Record<string, unknown> | null;
  occurredAt: Date;
}

/** What aggregates over many books read (a series' combined metadata, the catalogue's genres...). */
export interface BookMetadataRow {
  id: string;
  seriesId: string;
  numberSort: number | null;
  summary: string | null;
  year: number | null;
  metadata: BookRow["metadata"];
  createdAt: Date;
  updatedAt: Date;
}

/** The fields of a book that reading its pages or its file needs. */
export interface BookFileView {
  id: string;
  seriesId: string;
  filePath: string;
  fileFormat: string;
  fileHash: string;
  pageCount: number;
  /** The file's size and modification time (ms) at the last scan: what fileHash describes. */
  fileSize: number;
  fileModifiedAt: number;
  /** The book's library folder: the file must resolve inside it to be served. */
  libraryPath: string;
}

interface BookViewRow {
  book: BookRow;
  libraryName: string;
  libraryDirection: ReadingDirection;
  seriesName: string;
  seriesDirection: ReadingDirection | null;
  /** Null when the caller has none (drizzle nulls a left-joined object whose columns are all null). */
  progress: ProgressRecord | null;
}

/** The filters a book count can answer from the series' own counts: they select whole series. */
const SERIES_LEVEL_FILTERS: ReadonlySet<string> = new Set<keyof BookFilter>(["libraryId", "seriesId", "libraryIds", "seriesIds", "deleted", "seriesVisible"]);

function picksWholeSeries(filter: BookFilter): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || SERIES_LEVEL_FILTERS.has(key));
}

function toBookView(row: BookViewRow): BookView {
  return {
    ...row.book,
    libraryName: row.libraryName,
    seriesName: row.seriesName,
    readingDirection: row.seriesDirection ?? row.libraryDirection,
    progress: row.progress,
  };
}

export class BookQueryRepository {
  /** `fileOf` for an admin (any book), and for a user under sharing-tag grants (`viewerId`). */
  private readonly fileOfAny = preparedOnce(() => this.fileOfQuery(undefined, "book_file_of"));
  private readonly fileOfVisible = preparedOnce(() => this.fileOfQuery(this.access.seriesVisibleToViewer(), "book_file_of_visible"));
  /** A reader asks for the same book page after page. */
  private readonly recentFiles: RecentReads<BookFileView | undefined>;

  constructor(
    private readonly database: Database,
    private readonly access: AccessRepository,
  ) {
    this.recentFiles = new RecentReads(database);
  }

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
    const shownNumber = numberOrPosition(this.database);
    const orderBy =
      sort.field === "title"
        ? [order(title), asc(books.id)]
        : sort.field === "createdAt"
          ? [order(books.createdAt), asc(books.id)]
          : sort.field === "number"
            ? [unnumberedLast, order(books.numberSort), order(title), asc(books.id)]
            : sort.field === "numberOrPosition"
              ? [asc(sql`${shownNumber} is null`), order(shownNumber), order(title), asc(books.id)]
            : sort.field === "lastRead"
              ? [asc(sql`${readProgress.updatedAt} is null`), order(readProgress.updatedAt), asc(books.id)]
              : sort.field === "releaseDate"
                ? [asc(sql`${books.year} is null`), order(releaseDateKey(this.database)), asc(books.id)]
              : sort.field === "seriesPosition"
                ? inSeriesOrder(this.database, order)
              : // The stored order keys, which books_list_order_idx serves (no sort of the whole catalogue).
                [order(books.orderSeries), order(books.orderNumber), order(books.orderTitle), order(books.id)];
    // Two steps: sort and cut the page on narrow rows (ids and sort keys), then read the full
    // rows (metadata JSON included) of just that page. Sorting wide rows of a 10,000-book
    // library was most of a list request's time.
    // Deep pages: only what the order and the conditions read is joined, so that an admin's
    // default listing is an index-only walk of books_list_order_idx up to the page (page 150 of
    // 50 reads 7,500 index entries, not 7,500 books with their series and progress).
    const progressJoin = userId ? and(eq(readProgress.bookId, books.id), eq(readProgress.userId, userId)) : sql`false`;
    // Deeper still: the default order is by series first, so whole series before the page are
    // skipped by their kept counts and the walk starts at the page's series (seriesBefore).
    const skip = sort.field === "series" && page.offset > 0 && picksWholeSeries(filter) ? await this.seriesBefore(filter, page.offset, sort.direction) : undefined;
    if (skip === "past the end") return { total: await this.count(filter, where), rows: [] };
    const fromSeries = skip && (sort.direction === "desc" ? lte(books.orderSeries, skip.nameSort) : gte(books.orderSeries, skip.nameSort));
    // A text search counts its matches in the same statement as it cuts the page: the index
    // lookups are the cost of both, so they are made once.
    const countsMatches = filter.q !== undefined;
    const narrow = this.db
      .select({ id: books.id, ...(countsMatches ? { matches: sql<number>`count(*) over ()`.mapWith(Number) } : {}) })
      .from(books)
      .$dynamic();
    if (this.readsSeries(filter)) narrow.innerJoin(series, eq(series.id, books.seriesId));
    if (sort.field === "lastRead") narrow.leftJoin(readProgress, progressJoin);
    const narrowRows = await narrow
      .where(and(where, fromSeries))
      .orderBy(...orderBy)
      .limit(page.limit)
      .offset(page.offset - (skip?.booksBefore ?? 0));
    const rows = await this.named({ ids: narrowRows.map((row) => row.id) }, userId);
    const counted = countsMatches ? narrowRows[0]?.matches : undefined;
    return { total: counted ?? (await this.count(filter, where)), rows };
  }

  /**
   * The books `filter.ids` names that match the rest of the filter, in the order of the ids:
   * one query, neither paged nor counted (a page of ids already cut, a series in reading order).
   */
  async named(filter: BookFilter & { ids: string[] }, userId: string | null): Promise<BookView[]> {
    if (filter.ids.length === 0) return [];
    const rows = await this.selectViews(this.conditions(filter), userId);
    const position = new Map(filter.ids.map((id, index) => [id, index]));
    rows.sort((a, b) => position.get(a.book.id)! - position.get(b.book.id)!);
    return rows.map(toBookView);
  }

  /**
   * How many books match. A filter that only picks whole series (library, series, deletion
   * state, visibility: the unfiltered lists) adds up the counts the series keep (migration
   * 0012), so the total costs one row per series instead of one per book; any other filter
   * counts the matching books.
   */
  private async count(filter: BookFilter, where: SQL | undefined): Promise<number> {
    const { books, series } = this.database.tables;
    if (picksWholeSeries(filter)) {
      const [row] = await this.db
        .select({ n: sql<number>`coalesce(sum(${this.keptCount(filter)}), 0)`.mapWith(Number) })
        .from(series)
        .where(this.wholeSeries(filter));
      return row?.n ?? 0;
    }
    // The series join is needed for counting only when a condition looks at the series.
    const countQuery = this.db.select({ n: count() }).from(books);
    const [totalRow] = await (this.readsSeries(filter)
      ? countQuery.innerJoin(series, eq(series.id, books.seriesId)).where(where)
      : countQuery.where(where));
    return totalRow?.n ?? 0;
  }

  /**
   * For a deep page of the default order (series sort name first) under a filter that picks
   * whole series: the sort name of the series the page starts in, and how many matching books
   * come before that name, from the series' kept counts (one row per series instead of one
   * per skipped book). Exact because every book's `order_series` is its series' `name_sort`
   * (refreshOrderKeys, in the transaction of every change to either).
   */
  private async seriesBefore(filter: BookFilter, offset: number, direction: "asc" | "desc"): Promise<{ nameSort: string; booksBefore: number } | "past the end"> {
    const { series } = this.database.tables;
    const books = sql<number>`sum(${this.keptCount(filter)})`.mapWith(Number);
    const names = await this.db
      .select({ nameSort: series.nameSort, books })
      .from(series)
      .where(this.wholeSeries(filter))
      .groupBy(series.nameSort)
      .orderBy((direction === "desc" ? desc : asc)(bytewise(this.database, series.nameSort)));
    let booksBefore = 0;
    for (const name of names) {
      if (booksBefore + name.books > offset) return { nameSort: name.nameSort, booksBefore };
      booksBefore += name.books;
    }
    return "past the end";
  }

  /** The series whose books a whole-series filter (picksWholeSeries) picks. */
  private wholeSeries(filter: BookFilter): SQL | undefined {
    const { series } = this.database.tables;
    return and(
      // A book's library is its series' library (the scanner files each book under a series of its own library).
      filter.libraryId ? eq(series.libraryId, filter.libraryId) : undefined,
      filter.seriesId ? eq(series.id, filter.seriesId) : undefined,
      filter.libraryIds ? inArray(series.libraryId, filter.libraryIds) : undefined,
      filter.seriesIds ? inArray(series.id, filter.seriesIds) : undefined,
      filter.seriesVisible,
    );
  }

  /** Of a series' kept counts, the books a whole-series filter's deletion state picks. */
  private keptCount(filter: BookFilter): SQL {
    const { series } = this.database.tables;
    if (filter.deleted === undefined) return sql`${series.presentBookCount} + ${series.deletedBookCount}`;
    return sql`${filter.deleted ? series.deletedBookCount : series.presentBookCount}`;
  }

  async findOne(id: string, userId: string | null, seriesVisible?: SQL): Promise<BookView | undefined> {
    const [row] = await this.selectViews(this.conditions({ ids: [id], seriesVisible }), userId).limit(1);
    return row ? toBookView(row) : undefined;
  }

  /**
   * Just what serving a page or the file needs, in one small query (the hot path of readers):
   * the book if it exists and its series is visible to `viewerId`'s sharing-tag grants (null:
   * an admin, who sees everything; see AccessService.viewerFilter).
   */
  async fileOf(id: string, viewerId: string | null): Promise<BookFileView | undefined> {
    return this.recentFiles.get(`${viewerId}/${id}`, async () => {
      const [row] = viewerId === null ? await this.fileOfAny().execute({ id }) : await this.fileOfVisible().execute({ id, viewerId });
      return row;
    });
  }

  private fileOfQuery(seriesVisible: SQL | undefined, name: string) {
    const { books, series, libraries } = this.database.tables;
    return this.database.root
      .select({
        id: books.id,
        seriesId: books.seriesId,
        filePath: books.filePath,
        fileFormat: books.fileFormat,
        fileHash: books.fileHash,
        pageCount: books.pageCount,
        fileSize: books.fileSize,
        fileModifiedAt: books.fileModifiedAt,
        libraryPath: libraries.path,
      })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .innerJoin(libraries, eq(libraries.id, books.libraryId))
      .where(and(eq(books.id, sql.placeholder("id")), seriesVisible))
      .limit(1)
      .prepare(name);
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
        progress: progressColumns(this.database),
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

  /** The ids of the series' present books in reading order (see inSeriesOrder), at most `limit`. */
  async idsInSeriesOrder(seriesId: string, limit?: number): Promise<string[]> {
    const { books } = this.database.tables;
    const query = this.db
      .select({ id: books.id })
      .from(books)
      .where(and(eq(books.seriesId, seriesId), eq(books.deleted, false)))
      .orderBy(...inSeriesOrder(this.database, asc))
      .$dynamic();
    if (limit !== undefined) query.limit(limit);
    return (await query).map((row) => row.id);
  }

  /**
   * For each of these series, its first present book in reading order the user has not read
   * (UNREAD, see bookReadStatus): one grouped query, whatever the number of series. Returned by
   * series id; a series whose unread books are all still unplaced (mid-scan) has none.
   */
  async firstUnread(seriesIds: string[], userId: string): Promise<Map<string, string>> {
    if (seriesIds.length === 0) return new Map();
    const { books } = this.database.tables;
    const firsts = this.db
      .select({ seriesId: books.seriesId, position: sql<number>`min(${books.seriesPosition})`.as("first_position") })
      .from(books)
      .where(and(inArray(books.seriesId, seriesIds), eq(books.deleted, false), bookReadStatus(this.database, books.id, { userId, statuses: ["UNREAD"] })))
      .groupBy(books.seriesId)
      .as("firsts");
    const rows = await this.db
      .select({ id: books.id, seriesId: books.seriesId })
      .from(books)
      .innerJoin(firsts, and(eq(firsts.seriesId, books.seriesId), eq(firsts.position, books.seriesPosition)))
      .where(eq(books.deleted, false));
    return new Map(rows.map((row) => [row.seriesId, row.id]));
  }

  /** The metadata of every book matching the filter, unpaged, in series then number order. */
  async metadataOf(filter: BookFilter): Promise<BookMetadataRow[]> {
    const { books, series } = this.database.tables;
    return this.db
      .select({
        id: books.id,
        seriesId: books.seriesId,
        numberSort: books.numberSort,
        summary: books.summary,
        year: books.year,
        metadata: books.metadata,
        createdAt: books.createdAt,
        updatedAt: books.updatedAt,
      })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(this.conditions(filter))
      .orderBy(asc(books.seriesId), asc(sql`${books.numberSort} is null`), asc(books.numberSort), asc(books.id));
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

  /** Whether the conditions of `filter` look at the series (see conditions). */
  private readsSeries(filter: BookFilter): boolean {
    return Boolean(filter.q || filter.seriesVisible);
  }

  /** Conditions on books joined with their series (only `q` and `seriesVisible` read the series). */
  private conditions(filter: BookFilter): SQL | undefined {
    const { books, series } = this.database.tables;
    return and(
      filter.ids ? inArray(books.id, filter.ids) : undefined,
      filter.libraryId ? eq(books.libraryId, filter.libraryId) : undefined,
      filter.seriesId ? eq(books.seriesId, filter.seriesId) : undefined,
      filter.libraryIds ? inArray(books.libraryId, filter.libraryIds) : undefined,
      filter.seriesIds ? inArray(books.seriesId, filter.seriesIds) : undefined,
      filter.readStatus ? bookReadStatus(this.database, books.id, filter.readStatus) : undefined,
      filter.analysis ? or(...filter.analysis.map((state) => analysisIs(this.database, state)), sql`false`) : undefined,
      filter.condition ? bookConditionSql(this.database, filter.condition) : undefined,
      filter.metadata ? metadataMatches(this.database, books.metadata, filter.metadata) : undefined,
      filter.years ? inYears(books.year, filter.years) : undefined,
      filter.maxAgeRating === undefined ? undefined : bookAgeAtMost(this.database, books.metadata, filter.maxAgeRating),
      filter.deleted === undefined ? undefined : eq(books.deleted, filter.deleted),
      filter.q
        ? and(bookTextCandidates(this.database, filter.q), or(containsLowerCased(books.searchText, filter.q), containsIgnoringCase(series.name, filter.q)))
        : undefined,
      filter.seriesVisible,
      filter.koreaderDocument
        ? or(eq(books.partialMd5, filter.koreaderDocument), eq(books.fileNameMd5, filter.koreaderDocument))
        : undefined,
      filter.inProgressFor ? bookReadStatus(this.database, books.id, { userId: filter.inProgressFor, statuses: ["IN_PROGRESS"] }) : undefined,
    );
  }
}
