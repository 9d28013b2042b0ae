/**
 * Komga list filters (query parameters of the GET lists, condition trees of the POST lists) as
 * Longbox's series and book filters, and Komga's sort properties as Longbox's sorts.
 */
import type { AnalysisState, AuthorFilter, BookFilter, BookLeaf, BookSort, ConditionTree, ReadStatus, SeriesFilter, SeriesLeaf, SeriesSort } from "../../db";
import { t } from "elysia";
import { DomainError } from "../../errors";
import { SERIES_STATUSES, type SeriesStatus } from "../../db/schema/types";
import { bookCondition, MEDIA_STATUSES, READ_STATUSES, seriesCondition } from "./conditions";
import { booleanParam, optionalList, type SortOrder } from "./spring-page";

/** What a Komga list asks for, before it becomes a series or book filter. */
export interface KomgaCriteria {
  q?: string;
  libraryIds?: string[];
  seriesIds?: string[];
  readStatuses?: ReadStatus[];
  publishers?: string[];
  genres?: string[];
  tags?: string[];
  authors?: AuthorFilter[];
  languages?: string[];
  seriesStatuses?: string[];
  mediaStatuses?: string[];
  deleted?: boolean;
  /** Series in any of these collections (Komga's `collection_id` of the series lists). */
  collectionIds?: string[];
  /** Books in any of these read lists (`readlist_id`). */
  readListIds?: string[];
  /** Asks for something no Longbox series or book has: completeness against a total book count, being a one-shot. */
  impossible?: boolean;
}

/** Every Longbox series is ONGOING for Komga (Longbox keeps no publication status). */
/** Komga's series statuses, Longbox's lower-cased. */
const SERIES_STATUS_VALUES: ReadonlySet<string> = new Set(SERIES_STATUSES);

function readStatuses(values: string[] | undefined): ReadStatus[] | undefined {
  if (values === undefined) return undefined;
  const invalid = values.find((value) => !(READ_STATUSES as readonly string[]).includes(value));
  if (invalid !== undefined) throw new DomainError("BadRequest", `read_status must be one of ${READ_STATUSES.join(", ")}`);
  return values as ReadStatus[];
}

/** `author=name,role` (one parameter per author; the role after the last comma may be left out). */
function authorParams(params: URLSearchParams): AuthorFilter[] | undefined {
  const authors = params.getAll("author").flatMap((value): AuthorFilter[] => {
    const comma = value.lastIndexOf(",");
    const name = (comma < 0 ? value : value.slice(0, comma)).trim();
    const role = comma < 0 ? "" : value.slice(comma + 1).trim();
    return name ? [role ? { name, role } : { name }] : [];
  });
  return authors.length > 0 ? authors : undefined;
}

/** The GET list parameters (series: /series, books: /books and /series/{id}/books). */
export function criteriaFromQuery(params: URLSearchParams): KomgaCriteria {
  return {
    q: params.get("search")?.trim() || undefined,
    libraryIds: optionalList(params, "library_id"),
    seriesIds: optionalList(params, "series_id"),
    readStatuses: readStatuses(optionalList(params, "read_status")),
    publishers: optionalList(params, "publisher"),
    genres: optionalList(params, "genre"),
    tags: optionalList(params, "tag"),
    authors: authorParams(params),
    languages: optionalList(params, "language"),
    seriesStatuses: optionalList(params, "status"),
    mediaStatuses: optionalList(params, "media_status"),
    deleted: booleanParam(params, "deleted"),
    collectionIds: optionalList(params, "collection_id"),
    readListIds: optionalList(params, "readlist_id"),
    impossible: booleanParam(params, "complete") === true || booleanParam(params, "oneshot") === true,
  };
}

/** What a Komga series or book list asks the library services for. */
export type SeriesListFilter = Omit<SeriesFilter, "ids" | "withPresentBooks" | "seriesVisible">;
export type BookListFilter = Omit<BookFilter, "seriesVisible">;

/** The route options of POST /series/list and /books/list. */
export const searchRequest = {
  body: t.Object({ condition: t.Optional(t.Unknown()), fullTextSearch: t.Optional(t.Union([t.String({ maxLength: 500 }), t.Null()])) }),
};

interface SearchBody {
  condition?: unknown;
  fullTextSearch?: string | null;
}

const fullTextOf = (search: SearchBody) => search.fullTextSearch?.trim() || undefined;

/** The body of POST /series/list as a series filter: `{condition?, fullTextSearch?}`. */
export function seriesSearchFilter(search: SearchBody, userId: string): SeriesListFilter {
  return { q: fullTextOf(search), condition: search.condition == null ? undefined : seriesCondition(search.condition, userId) };
}

/** The body of POST /books/list as a book filter. */
export function bookSearchFilter(search: SearchBody, userId: string): BookListFilter {
  return { q: fullTextOf(search), condition: search.condition == null ? undefined : bookCondition(search.condition, userId) };
}

/** Ids must look like Longbox ids; anything else cannot match (and must not reach the database as a uuid). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ids = (values: string[] | undefined) => values?.filter((value) => UUID.test(value));

/**
 * Membership of any of the lists `listIds` (undefined: no such criterion; null: none can match,
 * as no id is a Longbox id). A list the caller is not shown holds nothing (condition-trees.ts).
 */
function inAnyList<Leaf>(listIds: string[] | undefined, leaf: (listId: string) => Leaf): ConditionTree<Leaf> | undefined | null {
  if (listIds === undefined) return undefined;
  const valid = ids(listIds)!;
  return valid.length === 0 ? null : { anyOf: valid.map(leaf) };
}

/**
 * The series filter, or null when the criteria cannot match any Longbox series. A read list
 * names books, not series: `readlist_id` (not a Komga series parameter) matches no series.
 */
export function seriesFilterOf(criteria: KomgaCriteria, userId: string): SeriesListFilter | null {
  if (criteria.impossible || criteria.deleted === true || criteria.readListIds !== undefined) return null;
  const inCollections = inAnyList(criteria.collectionIds, (listId): SeriesLeaf => ({ field: "collection", listId, userId }));
  if (inCollections === null) return null;
  // An unknown status matches no series (Komga answers 400 for it; a client filtering by a known one gets its series).
  const statuses = criteria.seriesStatuses?.map((status) => status.toLowerCase()).filter((status) => SERIES_STATUS_VALUES.has(status)) as SeriesStatus[] | undefined;
  if (statuses?.length === 0) return null;
  const withStatus: ConditionTree<SeriesLeaf> | undefined = statuses && { anyOf: statuses.map((value): SeriesLeaf => ({ field: "status", value })) };
  const libraryIds = ids(criteria.libraryIds);
  if (libraryIds?.length === 0) return null;
  const metadata =
    criteria.genres || criteria.tags || criteria.authors || criteria.languages
      ? { genres: criteria.genres, tags: criteria.tags, authors: criteria.authors, languages: criteria.languages }
      : undefined;
  return {
    q: criteria.q,
    libraryIds,
    publishers: criteria.publishers,
    readStatus: criteria.readStatuses ? { userId, statuses: criteria.readStatuses } : undefined,
    metadata,
    condition: inCollections && withStatus ? { allOf: [inCollections, withStatus] } : (inCollections ?? withStatus),
  };
}

/**
 * The book filter, or null when the criteria cannot match any Longbox book. A collection names
 * series: `collection_id` (not a Komga book parameter) matches no book.
 */
export function bookFilterOf(criteria: KomgaCriteria, userId: string): BookListFilter | null {
  if (criteria.impossible || criteria.collectionIds !== undefined) return null;
  const inReadLists = inAnyList(criteria.readListIds, (listId): BookLeaf => ({ field: "readList", listId, userId }));
  if (inReadLists === null) return null;
  const libraryIds = ids(criteria.libraryIds);
  const seriesIds = ids(criteria.seriesIds);
  if (libraryIds?.length === 0 || seriesIds?.length === 0) return null;
  let analysis: AnalysisState[] | undefined;
  if (criteria.mediaStatuses) {
    analysis = criteria.mediaStatuses.flatMap((status) => MEDIA_STATUSES[status.toUpperCase()] ?? []);
    if (analysis.length === 0) return null;
  }
  const metadata = criteria.tags || criteria.authors ? { tags: criteria.tags, authors: criteria.authors } : undefined;
  return {
    q: criteria.q,
    libraryIds,
    seriesIds,
    deleted: criteria.deleted,
    readStatus: criteria.readStatuses ? { userId, statuses: criteria.readStatuses } : undefined,
    analysis,
    metadata,
    condition: inReadLists,
  };
}

const SERIES_SORTS: Record<string, SeriesSort> = {
  "metadata.titleSort": "name",
  "metadata.title": "name",
  name: "name",
  relevance: "name",
  random: "name",
  createdDate: "createdAt",
  created: "createdAt",
  lastModifiedDate: "updatedAt",
  lastModified: "updatedAt",
  "booksMetadata.releaseDate": "year",
};

const BOOK_SORTS: Record<string, BookSort> = {
  // The number a Komga DTO shows: the book's own, else its place in its series.
  "metadata.numberSort": "numberOrPosition",
  number: "numberOrPosition",
  "metadata.title": "title",
  name: "title",
  createdDate: "createdAt",
  created: "createdAt",
  lastModifiedDate: "createdAt",
  lastModified: "createdAt",
  "readProgress.readDate": "lastRead",
  "metadata.releaseDate": "releaseDate",
  series: "series",
  seriesTitle: "series",
};

/** The first sort property Longbox knows (Komga ignores unknown ones too); undefined: the list's default. */
function sortOf<Field extends string>(orders: SortOrder[], known: Record<string, Field>): { field: Field; direction: "asc" | "desc" } | undefined {
  for (const order of orders) {
    const field = known[order.property];
    if (field) return { field, direction: order.direction };
  }
  return undefined;
}

export const seriesSortOf = (orders: SortOrder[]) => sortOf(orders, SERIES_SORTS);
export const bookSortOf = (orders: SortOrder[]) => sortOf(orders, BOOK_SORTS);
