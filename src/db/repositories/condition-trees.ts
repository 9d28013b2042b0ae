/**
 * Boolean trees of conditions on books and on series (allOf, anyOf, not over leaves), compiled
 * to one SQL condition for both databases. The Komga API's search conditions become these
 * trees (src/http/komga/conditions.ts); any surface can use them. A leaf whose value is missing
 * (SQL NULL) does not match, and its negation does: `not` reads a NULL as false first.
 * Text compares ignoring case (SQLite's lower() folds ASCII letters only).
 */
import { and, eq, exists, not, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../database";
import { analysisIs, authorMatches, bookReadStatus, hasListValue, languageOf, seriesReadStatus, type ReadStatus } from "./catalogue-filters";
import type { AnalysisState } from "./book-queries";
import { inShownList } from "./reading-lists";
import type { SeriesStatus } from "../schema/types";
import { seriesHasValue } from "./series-metadata-values";

export type ConditionTree<Leaf> = { allOf: ConditionTree<Leaf>[] } | { anyOf: ConditionTree<Leaf>[] } | { not: ConditionTree<Leaf> } | { always: boolean } | Leaf;

/** Text tests: equality, or where the value occurs. */
export type TextTest = { op: "is" | "contains" | "beginsWith" | "endsWith"; value: string };

/** A calendar date `YYYY-MM-DD`; `after` and `before` are strict. */
export type DateTest = { op: "before" | "after"; date: string } | { op: "known" };

/** Komga's numeric bounds are inclusive. */
export type NumberTest = { op: "is" | "atLeast" | "atMost"; value: number };

export type BookLeaf =
  | { field: "libraryId" | "seriesId"; value: string }
  | { field: "title"; test: TextTest }
  | { field: "releaseDate"; test: DateTest }
  /** The number the book is shown with: its own, else its place in its series (numberOrPosition). */
  | { field: "numberSort"; test: NumberTest }
  /** The book's metadata lists this value (ignoring case), or any value when none is given. */
  | { field: "tag" | "genre"; value?: string }
  | { field: "language"; value: string }
  /** An author with this name and / or role (ignoring case). */
  | { field: "author"; name?: string; role?: string }
  | { field: "readStatus"; userId: string; status: ReadStatus }
  | { field: "analysis"; state: AnalysisState }
  | { field: "fileFormat"; value: string }
  | { field: "deleted" }
  | { field: "customCover" }
  /** The book is in the read list, which `userId` is shown (shared, or theirs). */
  | { field: "readList"; listId: string; userId: string };

export type SeriesLeaf =
  | { field: "libraryId"; value: string }
  | { field: "name" | "nameSort"; test: TextTest }
  /** Ignoring case; a series without a publisher has "". */
  | { field: "publisher"; value: string }
  | { field: "readStatus"; userId: string; status: ReadStatus }
  /** The series' own genres or tags (series_metadata_values) hold this value ignoring case, or any value when none is given. */
  | { field: "tag" | "genre"; value?: string }
  /** The series' own language (settled from its first book, or set), ignoring case. */
  | { field: "language"; value: string }
  /** One of the series' own authors (series_metadata_values) has this name and / or role, ignoring case. */
  | { field: "author"; name?: string; role?: string }
  /** The series' publication status (one nobody set is ongoing, Komga's default). */
  | { field: "status"; value: SeriesStatus }
  /** The series' age rating (an unrated series matches no test but "known" negated). */
  | { field: "ageRating"; test: NumberTest | { op: "known" } }
  /** The series is in the collection, which `userId` is shown (shared, or theirs). */
  | { field: "collection"; listId: string; userId: string }
  /** One of the series' present books matches. */
  | { anyBook: BookCondition };

export type BookCondition = ConditionTree<BookLeaf>;
export type SeriesCondition = ConditionTree<SeriesLeaf>;

/** The tree as SQL over `leaf` (the leaves' own compiler). */
function compile<Leaf>(tree: ConditionTree<Leaf>, leaf: (leaf: Leaf) => SQL): SQL {
  const node = tree as Record<string, unknown>;
  if (Array.isArray(node.allOf)) return and(...(node.allOf as ConditionTree<Leaf>[]).map((part) => compile(part, leaf))) ?? sql`true`;
  // An empty anyOf matches everything, as Komga's.
  if (Array.isArray(node.anyOf)) return (node.anyOf as ConditionTree<Leaf>[]).length === 0 ? sql`true` : or(...(node.anyOf as ConditionTree<Leaf>[]).map((part) => compile(part, leaf)))!;
  if (node.not !== undefined) return not(sql`coalesce(${compile(node.not as ConditionTree<Leaf>, leaf)}, false)`);
  if (typeof node.always === "boolean") return node.always ? sql`true` : sql`false`;
  return leaf(tree as Leaf);
}

function likeEscaped(text: string): string {
  return text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`);
}

function textTest(column: SQLWrapper, test: TextTest): SQL {
  if (test.op === "is") return sql`lower(${column}) = ${test.value.toLowerCase()}`;
  const value = likeEscaped(test.value);
  const pattern = test.op === "contains" ? `%${value}%` : test.op === "beginsWith" ? `${value}%` : `%${value}`;
  return sql`lower(${column}) like ${pattern} escape '\\'`;
}

/** The book's release date as the number YYYYMMDD (month and day default to 1), NULL without a year. */
export function releaseDateKey(database: Database): SQL {
  const { books } = database.tables;
  const part = (key: "month" | "day") =>
    database.dialect === "postgres" ? sql`coalesce((${books.metadata}->>${key})::integer, 1)` : sql`coalesce(json_extract(${books.metadata}, ${`$.${key}`}), 1)`;
  return sql`(${books.year} * 10000 + ${part("month")} * 100 + ${part("day")})`;
}

/**
 * The number a book is shown with (the Komga API's numberSort): its own, else its place in its
 * series' order (`series_position`, src/library/series-order.ts); NULL only for a deleted book.
 */
export function numberOrPosition(database: Database): SQL {
  const { books } = database.tables;
  return sql`coalesce(${books.numberSort}, ${books.number}, ${books.seriesPosition})`;
}

function dateTest(database: Database, test: DateTest): SQL {
  if (test.op === "known") return sql`${database.tables.books.year} is not null`;
  const key = Number(test.date.replaceAll("-", ""));
  return test.op === "after" ? sql`${releaseDateKey(database)} > ${key}` : sql`${releaseDateKey(database)} < ${key}`;
}

export function bookConditionSql(database: Database, tree: BookCondition): SQL {
  const { books } = database.tables;
  return compile(tree, (leaf): SQL => {
    switch (leaf.field) {
      case "libraryId":
      case "seriesId":
        return eq(books[leaf.field], leaf.value);
      case "title":
        return textTest(books.title, leaf.test);
      case "releaseDate":
        return dateTest(database, leaf.test);
      case "numberSort": {
        const operator = { is: sql`=`, atLeast: sql`>=`, atMost: sql`<=` }[leaf.test.op];
        return sql`${numberOrPosition(database)} ${operator} ${leaf.test.value}`;
      }
      case "tag":
      case "genre":
        return hasListValue(database, books.metadata, leaf.field === "tag" ? "tags" : "genres", leaf.value);
      case "language":
        return sql`${languageOf(database, books.metadata)} = ${leaf.value.toLowerCase()}`;
      case "author":
        return authorMatches(database, books.metadata, leaf);
      case "readStatus":
        return bookReadStatus(database, books.id, { userId: leaf.userId, statuses: [leaf.status] });
      case "analysis":
        return analysisIs(database, leaf.state);
      case "fileFormat":
        return eq(books.fileFormat, leaf.value);
      case "deleted":
        return eq(books.deleted, true);
      case "customCover":
        return sql`${books.customCoverPath} is not null`;
      case "readList":
        return inShownList(database, "readlist", leaf.listId, leaf.userId, books.id);
    }
  });
}

export function seriesConditionSql(database: Database, tree: SeriesCondition): SQL {
  const { series, books } = database.tables;
  return compile(tree, (leaf): SQL => {
    if ("anyBook" in leaf) {
      return exists(
        database
          .handle()
          .select({ one: sql`1` })
          .from(books)
          .where(and(eq(books.seriesId, series.id), eq(books.deleted, false), bookConditionSql(database, leaf.anyBook))),
      );
    }
    switch (leaf.field) {
      case "libraryId":
        return eq(series.libraryId, leaf.value);
      case "name":
      case "nameSort":
        return textTest(series[leaf.field], leaf.test);
      case "publisher":
        return sql`lower(coalesce(${series.publisher}, '')) = ${leaf.value.toLowerCase()}`;
      case "readStatus":
        return seriesReadStatus(database, series.id, { userId: leaf.userId, statuses: [leaf.status] });
      case "collection":
        return inShownList(database, "collection", leaf.listId, leaf.userId, series.id);
      case "tag":
      case "genre":
        return seriesHasValue(database, series.id, leaf.field, leaf.value === undefined ? undefined : [leaf.value]);
      case "language":
        return sql`lower(${series.language}) = ${leaf.value.toLowerCase()}`;
      case "author":
        return seriesHasValue(database, series.id, "author", leaf.name === undefined ? undefined : [leaf.name], leaf.role);
      case "status":
        return sql`coalesce(${series.status}, 'ongoing') = ${leaf.value}`;
      case "ageRating": {
        if (leaf.test.op === "known") return sql`${series.ageRating} is not null`;
        const operator = { is: sql`=`, atLeast: sql`>=`, atMost: sql`<=` }[leaf.test.op];
        return sql`${series.ageRating} ${operator} ${leaf.test.value}`;
      }
    }
  });
}
