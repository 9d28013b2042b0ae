/**
 * Filter conditions that book and series lists share: a user's read status, and membership of
 * a value in a book's metadata lists (genres, tags, authors) or its language, written once for both databases
 * (PostgreSQL's jsonb functions, SQLite's json_each). Values compare ignoring case.
 */
import { and, eq, exists, gte, inArray, lte, not, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../database";
import type { AnalysisState } from "./book-queries";
import { seriesHasValue } from "./series-metadata-values";

/** A user's state on a book (or, summed over its present books, on a series). */
export type ReadStatus = "UNREAD" | "IN_PROGRESS" | "READ";

export interface ReadStatusFilter {
  userId: string;
  /** Any of these (an empty list matches nothing). */
  statuses: ReadStatus[];
}

/** One author, matched by name (ignoring case) and, when given, by role. */
export interface AuthorFilter {
  name: string;
  role?: string;
}

/** Lists of values inside the books' metadata: a book matches when it holds any value of each given list. */
export interface MetadataFilter {
  genres?: string[];
  tags?: string[];
  authors?: AuthorFilter[];
  languages?: string[];
}

/** A range of years; a missing end is open. */
export interface YearRange {
  from?: number;
  to?: number;
}

/** The year column lies in the range (a row without a year never does). */
export function inYears(year: SQLWrapper, { from, to }: YearRange): SQL | undefined {
  return and(from === undefined ? undefined : gte(year, from), to === undefined ? undefined : lte(year, to));
}

/** The book's age rating (metadata `ageRating`), NULL when it has none. */
export function ageRatingOf(database: Database, metadata: SQLWrapper): SQL {
  return database.dialect === "postgres" ? sql`(${metadata}->>'ageRating')::integer` : sql`json_extract(${metadata}, '$.ageRating')`;
}

/** A rated book, for readers of at most this age (an unrated book never is: nothing says it suits them). */
export function bookAgeAtMost(database: Database, metadata: SQLWrapper, age: number): SQL {
  return lte(ageRatingOf(database, metadata), age);
}

/** The series carries one of these sharing tags (an admin's filter; visibility is seriesVisible's). */
export function seriesTaggedWith(database: Database, seriesId: SQLWrapper, sharingTagIds: string[]): SQL {
  const { seriesSharingTags } = database.tables;
  return exists(
    database
      .handle()
      .select({ one: sql`1` })
      .from(seriesSharingTags)
      .where(and(eq(seriesSharingTags.seriesId, seriesId), inArray(seriesSharingTags.sharingTagId, sharingTagIds))),
  );
}

/**
 * The one definition of a book being read (a `read_progress` row): started, past its first page
 * or into an EPUB (progression above 0), and not completed. A book opened for a glance (page 1,
 * no progression) is not started: it stays unread for every read status, the books in progress
 * ("continue reading"), the series' counts and on deck alike.
 */
export function progressStarted(database: Database): SQL {
  const { readProgress } = database.tables;
  return and(eq(readProgress.completed, false), or(gte(readProgress.page, 2), sql`${readProgress.progression} > 0`))!;
}

/** The progress row makes its book not unread: completed or started (see progressStarted). */
export function progressCounts(database: Database): SQL {
  return or(eq(database.tables.readProgress.completed, true), progressStarted(database))!;
}

/** The book's read status for the user: no progress that counts (see progressStarted), started, completed. */
export function bookReadStatus(database: Database, bookId: SQLWrapper, { userId, statuses }: ReadStatusFilter): SQL {
  const { readProgress } = database.tables;
  const progress = (state: SQL) =>
    exists(
      database
        .handle()
        .select({ one: sql`1` })
        .from(readProgress)
        .where(and(eq(readProgress.bookId, bookId), eq(readProgress.userId, userId), state)),
    );
  const byStatus: Record<ReadStatus, () => SQL> = {
    UNREAD: () => not(progress(progressCounts(database))),
    IN_PROGRESS: () => progress(progressStarted(database)),
    READ: () => progress(eq(readProgress.completed, true)),
  };
  return or(...statuses.map((status) => byStatus[status]()), sql`false`)!;
}

/**
 * The series' read status for the user, over its present books: unread when none has progress
 * that counts (see progressStarted), read when all are completed, in progress otherwise (Komga's rule).
 */
export function seriesReadStatus(database: Database, seriesId: SQLWrapper, { userId, statuses }: ReadStatusFilter): SQL {
  const { books, readProgress } = database.tables;
  const db = database.handle();
  const progressOfUser = and(eq(readProgress.bookId, books.id), eq(readProgress.userId, userId));
  const anyProgress = exists(
    db
      .select({ one: sql`1` })
      .from(books)
      .innerJoin(readProgress, progressOfUser)
      .where(and(eq(books.seriesId, seriesId), eq(books.deleted, false), progressCounts(database))),
  );
  const anyUnfinished = exists(
    db
      .select({ one: sql`1` })
      .from(books)
      .leftJoin(readProgress, progressOfUser)
      .where(and(eq(books.seriesId, seriesId), eq(books.deleted, false), sql`(${readProgress.completed} is null or ${readProgress.completed} = ${false})`)),
  );
  const byStatus: Record<ReadStatus, () => SQL> = {
    UNREAD: () => not(anyProgress),
    IN_PROGRESS: () => and(anyProgress, anyUnfinished)!,
    READ: () => not(anyUnfinished),
  };
  return or(...statuses.map((status) => byStatus[status]()), sql`false`)!;
}

/**
 * The series is "on deck" for the user: some of its present books are read, none is in
 * progress, and one is still unread (the next book waits; Komga's rule), "in progress" and
 * "unread" as bookReadStatus has them (see progressStarted).
 */
export function seriesOnDeck(database: Database, seriesId: SQLWrapper, userId: string): SQL {
  const { books, readProgress } = database.tables;
  const db = database.handle();
  const ofSeries = and(eq(books.seriesId, seriesId), eq(books.deleted, false));
  const progressOfUser = and(eq(readProgress.bookId, books.id), eq(readProgress.userId, userId));
  const booksWith = (state: SQL) => exists(db.select({ one: sql`1` }).from(books).innerJoin(readProgress, progressOfUser).where(and(ofSeries, state)));
  const anyUnread = exists(
    db
      .select({ one: sql`1` })
      .from(books)
      .leftJoin(readProgress, and(progressOfUser, progressCounts(database)))
      .where(and(ofSeries, sql`${readProgress.bookId} is null`)),
  );
  return and(booksWith(eq(readProgress.completed, true)), not(booksWith(progressStarted(database))), anyUnread)!;
}

/** The book's metadata (a JSON column) holds one of the values of every list given. */
export function metadataMatches(database: Database, metadata: SQLWrapper, filter: MetadataFilter): SQL | undefined {
  const lower = (values: string[]) => values.map((value) => value.toLowerCase());
  return and(
    filter.genres ? inList(database, metadata, "genres", lower(filter.genres)) : undefined,
    filter.tags ? inList(database, metadata, "tags", lower(filter.tags)) : undefined,
    filter.authors ? or(...filter.authors.map((author) => authorMatches(database, metadata, author)), sql`false`) : undefined,
    filter.languages ? inArray(languageOf(database, metadata), lower(filter.languages)) : undefined,
  );
}

/**
 * The series' own metadata matches (genres, tags, authors through series_metadata_values' index,
 * the language column): one value of every list given, ignoring case.
 */
export function seriesMetadataMatches(database: Database, series: { id: SQLWrapper; language: SQLWrapper }, filter: MetadataFilter): SQL | undefined {
  return and(
    filter.genres ? seriesHasValue(database, series.id, "genre", filter.genres) : undefined,
    filter.tags ? seriesHasValue(database, series.id, "tag", filter.tags) : undefined,
    filter.authors ? or(...filter.authors.map((author) => seriesHasValue(database, series.id, "author", [author.name], author.role)), sql`false`) : undefined,
    filter.languages ? inArray(sql`lower(${series.language})`, filter.languages.map((language) => language.toLowerCase())) : undefined,
  );
}

/** The book's language, lower-cased (NULL when it has none). */
export function languageOf(database: Database, metadata: SQLWrapper): SQL {
  return database.dialect === "postgres" ? sql`lower(${metadata}->>'language')` : sql`lower(json_extract(${metadata}, '$.language'))`;
}

/** The list `key` holds one of these lower-cased values (`values` undefined: any value at all). */
function inList(database: Database, metadata: SQLWrapper, key: "genres" | "tags", values: string[] | undefined): SQL {
  const matching =
    values === undefined
      ? sql``
      : sql` where lower(item.value) in (${sql.join(
          values.map((value) => sql`${value}`),
          sql`, `,
        )})`;
  return database.dialect === "postgres"
    ? sql`exists (select 1 from jsonb_array_elements_text(coalesce(${metadata}->${key}, '[]'::jsonb)) as item(value)${matching})`
    : sql`exists (select 1 from json_each(${metadata}, ${`$.${key}`}) as item${matching})`;
}

/** The list `key` holds this value ignoring case, or (no value) holds anything. */
export function hasListValue(database: Database, metadata: SQLWrapper, key: "genres" | "tags", value: string | undefined): SQL {
  return inList(database, metadata, key, value === undefined ? undefined : [value.toLowerCase()]);
}

/** An author with this name and / or role, ignoring case (neither given: any author). */
export function authorMatches(database: Database, metadata: SQLWrapper, author: { name?: string; role?: string }): SQL {
  const postgres = database.dialect === "postgres";
  const field = (key: "name" | "role") => (postgres ? sql`lower(item.value->>${key})` : sql`lower(json_extract(item.value, ${`$.${key}`}))`);
  const tests = [
    ...(author.name === undefined ? [] : [sql`${field("name")} = ${author.name.toLowerCase()}`]),
    ...(author.role === undefined ? [] : [sql`${field("role")} = ${author.role.toLowerCase()}`]),
  ];
  const where = tests.length === 0 ? sql`` : sql` where ${sql.join(tests, sql` and `)}`;
  return postgres
    ? sql`exists (select 1 from jsonb_array_elements(coalesce(${metadata}->'authors', '[]'::jsonb)) as item(value)${where})`
    : sql`exists (select 1 from json_each(${metadata}, '$.authors') as item${where})`;
}

/** See AnalysisState. */
export function analysisIs(database: Database, state: AnalysisState): SQL {
  const { books } = database.tables;
  if (state === "ready") return sql`${books.pageCount} > 0`;
  return and(eq(books.pageCount, 0), sql`${books.analysisError} is ${state === "error" ? sql`not null` : sql`null`}`)!;
}
