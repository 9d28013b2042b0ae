/**
 * The filters of the web's series grid and of a series' books, kept in the page's URL so a
 * filtered view can be bookmarked or shared: `status` (repeatable: unread, in-progress, read),
 * `genre`, `tag`, `publisher` (series only), `language`, `author`, `year_from`, `year_to`,
 * `age_rating` (at most this age, like Komga's), `sharing_tag` (series only, admins only: for
 * anyone else it is ignored, as the sharing tags are the admins' business).
 * One query schema, one parse into the catalogue's series and book filters, and the values
 * back as query parameters (for the next page's URL) and for the form.
 */
import { t, type Static } from "elysia";
import type { BookFilter, ReadStatus, SeriesFilter } from "../../db";
import { DomainError } from "../../errors";

const STATUS_PARAMS = { unread: "UNREAD", "in-progress": "IN_PROGRESS", read: "READ" } as const satisfies Record<string, ReadStatus>;
export type StatusParam = keyof typeof STATUS_PARAMS;
export const STATUS_OPTIONS: readonly { value: StatusParam; labelId: string }[] = [
  { value: "unread", labelId: "filters.status.unread" },
  { value: "in-progress", labelId: "filters.status.inProgress" },
  { value: "read", labelId: "filters.status.read" },
];

const text = t.Optional(t.String({ maxLength: 200 }));
/** A year, or blank (the form sends its empty fields). */
const year = t.Optional(t.String({ pattern: "^[0-9]{0,4}$", error: "a year is a number of up to 4 digits" }));
const yearOf = (value: string | undefined) => (value ? Number(value) : null);

/** The ages the age-rating filter offers (ComicInfo's ratings as ages, src/formats/comicinfo.ts). */
export const AGE_OPTIONS: readonly { value: number; labelId: string }[] = [
  { value: 0, labelId: "filters.age.everyone" },
  { value: 3, labelId: "filters.age.upTo3" },
  { value: 6, labelId: "filters.age.upTo6" },
  { value: 8, labelId: "filters.age.upTo8" },
  { value: 10, labelId: "filters.age.upTo10" },
  { value: 13, labelId: "filters.age.upTo13" },
  { value: 15, labelId: "filters.age.upTo15" },
  { value: 17, labelId: "filters.age.upTo17" },
  { value: 18, labelId: "filters.age.upTo18" },
];

/** Query fields of a filtered page (spread into its query schema). */
export const FILTER_QUERY = {
  // Checked by filterValues: Elysia answers a query list item that fails its schema with a 500.
  status: t.Optional(t.Array(t.String())),
  genre: text,
  tag: text,
  publisher: text,
  language: text,
  author: text,
  year_from: year,
  year_to: year,
  age_rating: t.Optional(t.String({ pattern: "^[0-9]{0,2}$", error: "an age rating is a number of up to 2 digits" })),
  sharing_tag: t.Optional(t.String({ maxLength: 64 })),
};

const FILTER_SCHEMA = t.Object(FILTER_QUERY);
type FilterQuery = Static<typeof FILTER_SCHEMA>;

/** The filters as given, blanks dropped: what the form shows and the next page's URL repeats. */
export interface CatalogueFilterValues {
  status: StatusParam[];
  genre: string;
  tag: string;
  publisher: string;
  language: string;
  author: string;
  yearFrom: number | null;
  yearTo: number | null;
  ageRating: number | null;
  /** A sharing tag's id; always "" for a caller who is not an admin. */
  sharingTag: string;
}

const isStatus = (value: string): value is StatusParam => Object.hasOwn(STATUS_PARAMS, value);

/** The filters of a request (`admin`: the caller may filter by sharing tag); an unknown read status is a 400. */
export function filterValues(query: FilterQuery, admin = false): CatalogueFilterValues {
  const status = query.status ?? [];
  if (!status.every(isStatus)) throw new DomainError("BadRequest", "status must be unread, in-progress or read");
  return {
    status: [...new Set(status)],
    genre: query.genre?.trim() ?? "",
    tag: query.tag?.trim() ?? "",
    publisher: query.publisher?.trim() ?? "",
    language: query.language?.trim() ?? "",
    author: query.author?.trim() ?? "",
    yearFrom: yearOf(query.year_from),
    yearTo: yearOf(query.year_to),
    ageRating: yearOf(query.age_rating),
    sharingTag: admin ? (query.sharing_tag?.trim() ?? "") : "",
  };
}

/** Whether any filter is set. */
export function isFiltered(values: CatalogueFilterValues): boolean {
  return Object.values(filterParams(values)).some((value) => value !== null && value !== "" && !(Array.isArray(value) && value.length === 0));
}

/** The values as query parameters (for urlWith). */
export function filterParams(values: CatalogueFilterValues): Record<string, string | number | string[] | null> {
  return {
    status: values.status,
    genre: values.genre,
    tag: values.tag,
    publisher: values.publisher,
    language: values.language,
    author: values.author,
    year_from: values.yearFrom,
    year_to: values.yearTo,
    age_rating: values.ageRating,
    sharing_tag: values.sharingTag,
  };
}

const listOf = (value: string) => (value ? [value] : undefined);

function yearsOf(values: CatalogueFilterValues) {
  if (values.yearFrom === null && values.yearTo === null) return undefined;
  return { from: values.yearFrom ?? undefined, to: values.yearTo ?? undefined };
}

/** The book-level part: a book matches it, or a series holds a present book that does. */
function metadataOf(values: CatalogueFilterValues) {
  const metadata = { genres: listOf(values.genre), tags: listOf(values.tag), languages: listOf(values.language), authors: values.author ? [{ name: values.author }] : undefined };
  return Object.values(metadata).some((value) => value !== undefined) ? metadata : undefined;
}

const readStatusOf = (values: CatalogueFilterValues, userId: string) =>
  values.status.length > 0 ? { userId, statuses: values.status.map((status) => STATUS_PARAMS[status]) } : undefined;

const ageOf = (values: CatalogueFilterValues) => values.ageRating ?? undefined;

export function seriesFilterOf(
  values: CatalogueFilterValues,
  userId: string,
): Pick<SeriesFilter, "readStatus" | "metadata" | "publishers" | "years" | "maxAgeRating" | "sharingTagIds"> {
  return {
    readStatus: readStatusOf(values, userId),
    metadata: metadataOf(values),
    publishers: listOf(values.publisher),
    years: yearsOf(values),
    maxAgeRating: ageOf(values),
    sharingTagIds: listOf(values.sharingTag),
  };
}

export function bookFilterOf(values: CatalogueFilterValues, userId: string): Pick<BookFilter, "readStatus" | "metadata" | "years" | "maxAgeRating"> {
  return { readStatus: readStatusOf(values, userId), metadata: metadataOf(values), years: yearsOf(values), maxAgeRating: ageOf(values) };
}
