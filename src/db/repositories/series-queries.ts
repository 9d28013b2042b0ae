/**
 * Reads of series as the API shows them: with their library's name, the effective reading
 * direction, how many present books they hold and how many of those the caller has read or
 * started. Lists show only series that still hold a present book (a series whose files all
 * vanished is out of library views, like its soft-deleted books).
 */
import { and, asc, count, desc, eq, inArray, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Database } from "../database";
import type { ReadingDirection } from "./libraries";
import type { SeriesLink, SeriesStatus } from "../schema/types";
import type { Author } from "../../formats/contract";
import { bytewise } from "./ordering";
import { containsIgnoringCase, seriesNameCandidates } from "./text-search";
import { seriesValuesOf } from "./series-metadata-values";
import { seriesConditionSql, type SeriesCondition } from "./condition-trees";
import { inYears, progressStarted, seriesMetadataMatches, seriesOnDeck, seriesReadStatus, seriesTaggedWith, type MetadataFilter, type ReadStatusFilter, type YearRange } from "./catalogue-filters";

export interface SeriesView {
  id: string;
  libraryId: string;
  libraryName: string;
  name: string;
  nameSort: string;
  summary: string | null;
  publisher: string | null;
  year: number | null;
  /** The series' own direction, else its library's default. */
  readingDirection: ReadingDirection;
  /** What its books say together, or an admin's (src/library/series-settlement.ts). */
  genres: string[];
  tags: string[];
  authors: Author[];
  ageRating: number | null;
  language: string | null;
  status: SeriesStatus | null;
  links: SeriesLink[];
  lockedFields: string[];
  customCoverPath: string | null;
  /** Present (not soft-deleted) books. */
  bookCount: number;
  booksReadCount: number;
  booksInProgressCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface SeriesFilter {
  ids?: string[];
  libraryId?: string;
  /** In any of these libraries. */
  libraryIds?: string[];
  /** Published by any of these (ignoring case). */
  publishers?: string[];
  /** The user's read status of the series (over its present books) is one of these. */
  readStatus?: ReadStatusFilter;
  /**
   * The series' own metadata matches: its genres, tags and authors (series_metadata_values:
   * what its books say together, or what an admin set) and its language.
   */
  metadata?: MetadataFilter;
  /** Text anywhere in the name, ignoring case. */
  q?: string;
  /** The series' year lies in this range. */
  years?: YearRange;
  /** Rated for readers of at most this age (the series' rating: its highest book's, or an admin's; an unrated series never is). */
  maxAgeRating?: number;
  /** Carries one of these sharing tags (admins' filter). */
  sharingTagIds?: string[];
  /** Series on deck for this user (see seriesOnDeck). */
  onDeckFor?: string;
  /** Only series holding at least one present book (lists). */
  withPresentBooks?: boolean;
  /** Sharing-tag visibility, built by the access repository. */
  seriesVisible?: SQL | undefined;
  /** Any tree of conditions on the series (the Komga API's searches). */
  condition?: SeriesCondition;
}

/** `lastRead`: by the caller's latest progress on any of the series' books, series without progress last. */
export type SeriesSort = "name" | "createdAt" | "updatedAt" | "year" | "lastRead";

export class SeriesQueryRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async find(
    filter: SeriesFilter,
    userId: string,
    page: { offset: number; limit: number },
    sort: { field: SeriesSort; direction: "asc" | "desc" } = { field: "name", direction: "asc" },
  ): Promise<{ rows: SeriesView[]; total: number }> {
    const rows = await this.views(filter, userId, page, sort);
    const [totalRow] = await this.db.select({ n: count() }).from(this.database.tables.series).where(this.conditions(filter));
    return { total: totalRow?.n ?? 0, rows };
  }

  /** One page of the matching series as the API shows them (uncounted). */
  private async views(
    filter: SeriesFilter,
    userId: string,
    page: { offset: number; limit: number },
    sort: { field: SeriesSort; direction: "asc" | "desc" } = { field: "name", direction: "asc" },
  ): Promise<SeriesView[]> {
    const { series, libraries } = this.database.tables;
    const order = sort.direction === "desc" ? desc : asc;
    const sortColumn = {
      name: bytewise(this.database, series.nameSort),
      createdAt: series.createdAt,
      updatedAt: series.updatedAt,
      year: series.year,
      lastRead: sort.field === "lastRead" ? this.lastReadOf(userId) : series.updatedAt,
    }[sort.field];
    // Series without a year (or never read) come last on both databases (their NULL ordering differs).
    const orderBy = sort.field === "year" || sort.field === "lastRead" ? [asc(sql`${sortColumn} is null`), order(sortColumn)] : [order(sortColumn)];
    const rows = await this.db
      .select({ series, libraryName: libraries.name, libraryDirection: libraries.defaultReadingDirection })
      .from(series)
      .innerJoin(libraries, eq(libraries.id, series.libraryId))
      .where(this.conditions(filter))
      .orderBy(...orderBy, asc(bytewise(this.database, series.nameSort)), asc(series.id))
      .limit(page.limit)
      .offset(page.offset);
    const progress = await this.progressCounts(
      rows.map((row) => row.series.id),
      userId,
    );
    return rows.map((row) => {
      const { seriesKey: _key, folderPath: _folder, presentBookCount, deletedBookCount: _deleted, readingDirection, ...fields } = row.series;
      return {
        ...fields,
        libraryName: row.libraryName,
        readingDirection: readingDirection ?? row.libraryDirection,
        bookCount: presentBookCount,
        ...(progress.get(row.series.id) ?? { booksReadCount: 0, booksInProgressCount: 0 }),
      };
    });
  }

  /**
   * Per series of the page, how many of its present books the user completed or has in
   * progress: one grouped pass over the user's progress on those series (the book counts
   * themselves are kept on the series, see migration 0012).
   */
  private async progressCounts(seriesIds: string[], userId: string) {
    const counts = new Map<string, { booksReadCount: number; booksInProgressCount: number }>();
    if (seriesIds.length === 0) return counts;
    const { books, readProgress } = this.database.tables;
    const rows = await this.db
      .select({
        seriesId: books.seriesId,
        booksReadCount: sql<number>`sum(case when ${readProgress.completed} = ${true} then 1 else 0 end)`,
        booksInProgressCount: sql<number>`sum(case when ${progressStarted(this.database)} then 1 else 0 end)`,
      })
      .from(readProgress)
      .innerJoin(books, eq(books.id, readProgress.bookId))
      .where(and(eq(readProgress.userId, userId), inArray(books.seriesId, seriesIds), eq(books.deleted, false)))
      .groupBy(books.seriesId);
    for (const row of rows) {
      counts.set(row.seriesId, { booksReadCount: Number(row.booksReadCount ?? 0), booksInProgressCount: Number(row.booksInProgressCount ?? 0) });
    }
    return counts;
  }

  /** The time of the user's latest progress on a book of the series (null: none). */
  private lastReadOf(userId: string): SQL {
    const { series, books, readProgress } = this.database.tables;
    return sql`(${this.db
      .select({ at: sql`max(${readProgress.updatedAt})` })
      .from(readProgress)
      .innerJoin(books, eq(books.id, readProgress.bookId))
      .where(and(eq(readProgress.userId, userId), eq(books.seriesId, series.id), eq(books.deleted, false)))})`;
  }

  /** The distinct genres or tags of the matching series (series_metadata_values; one spelling per value ignoring case). */
  async valuesOf(kind: "genre" | "tag", filter: SeriesFilter): Promise<string[]> {
    return (await seriesValuesOf(this.database, kind, this.conditions(filter))).map((row) => row.value);
  }

  /** The matching series' own publishers and languages, each distinct (the caller folds case). */
  async ownValuesOf(filter: SeriesFilter): Promise<{ publishers: string[]; languages: string[] }> {
    const { series } = this.database.tables;
    const [publishers, languages] = await Promise.all([this.distinctOf<string>(series.publisher, filter), this.distinctOf<string>(series.language, filter)]);
    return { publishers: publishers.filter(Boolean), languages: languages.filter(Boolean) };
  }

  /**
   * The distinct release years of the matching series, newest first: each series' earliest
   * dated present book's (Komga's aggregated release date, which its series release-date
   * conditions match: src/http/komga/conditions.ts).
   */
  async releaseYearsOf(filter: SeriesFilter): Promise<number[]> {
    const { series, books } = this.database.tables;
    const earliest = this.db
      .select({ year: sql<number>`min(${books.year})`.as("year") })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(and(this.conditions(filter), eq(books.deleted, false), sql`${books.year} is not null`))
      .groupBy(books.seriesId)
      .as("earliest");
    const rows = await this.db.selectDistinct({ year: earliest.year }).from(earliest).orderBy(desc(earliest.year));
    return rows.map((row) => Number(row.year));
  }

  /** The matching series' own authors (series_metadata_values), one spelling per name and role. */
  async authorsOf(filter: SeriesFilter): Promise<Author[]> {
    return (await seriesValuesOf(this.database, "author", this.conditions(filter))).map((row) => ({ name: row.value, role: row.role }));
  }

  /** The distinct age ratings of the matching series, youngest first. */
  ageRatingsOf(filter: SeriesFilter): Promise<number[]> {
    return this.distinctOf<number>(this.database.tables.series.ageRating, filter);
  }

  /** The distinct values, nulls left out, of one of the matching series' columns, in ascending order. */
  private async distinctOf<T>(column: AnyColumn, filter: SeriesFilter): Promise<T[]> {
    const rows = await this.db
      .selectDistinct({ value: sql<T>`${column}` })
      .from(this.database.tables.series)
      .where(and(this.conditions(filter), sql`${column} is not null`))
      .orderBy(asc(column));
    return rows.map((row) => row.value);
  }

  async findOne(id: string, userId: string, seriesVisible?: SQL): Promise<SeriesView | undefined> {
    return (await this.views({ ids: [id], seriesVisible }, userId, { offset: 0, limit: 1 }))[0];
  }

  private conditions(filter: SeriesFilter): SQL | undefined {
    const { series } = this.database.tables;
    return and(
      filter.ids ? inArray(series.id, filter.ids) : undefined,
      filter.libraryId ? eq(series.libraryId, filter.libraryId) : undefined,
      filter.libraryIds ? inArray(series.libraryId, filter.libraryIds) : undefined,
      filter.publishers ? inArray(sql`lower(${series.publisher})`, filter.publishers.map((name) => name.toLowerCase())) : undefined,
      // The series' own columns before the subqueries over its books: SQLite tests the terms in
      // this order, so a year range spares the books of every series outside it (issue 32).
      filter.years ? inYears(series.year, filter.years) : undefined,
      filter.withPresentBooks ? sql`${series.presentBookCount} > 0` : undefined,
      filter.metadata ? seriesMetadataMatches(this.database, series, filter.metadata) : undefined,
      filter.sharingTagIds ? seriesTaggedWith(this.database, series.id, filter.sharingTagIds) : undefined,
      filter.maxAgeRating === undefined ? undefined : lte(series.ageRating, filter.maxAgeRating),
      filter.readStatus ? seriesReadStatus(this.database, series.id, filter.readStatus) : undefined,
      filter.q ? and(seriesNameCandidates(this.database, filter.q), containsIgnoringCase(series.name, filter.q)) : undefined,
      filter.onDeckFor ? seriesOnDeck(this.database, series.id, filter.onDeckFor) : undefined,
      filter.seriesVisible,
      filter.condition ? seriesConditionSql(this.database, filter.condition) : undefined,
    );
  }
}
