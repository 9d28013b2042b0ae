/**
 * Metadata gathered over many books: what the books of each series say together (tags, first
 * release, the first summary; the series' genres, authors and language are its own, settled by
 * ./series-settlement.ts), and the distinct values a list's filters can pick from, as a caller
 * sees them: for lists of series the series' own values (what series filters match: their
 * genres, tags and authors from series_metadata_values, their publisher, language, year and age
 * rating), for lists of books the books' (what book filters match).
 * Always through the caller's sharing-tag visibility.
 */
import type { BookMetadataRow, Repositories } from "../db";
import type { AccessService } from "../access/visibility";
import type { Author } from "../formats/contract";
import type { Caller } from "./books";

/** A calendar date; month and day are 1 when the metadata names only a year (or a month). */
export interface ReleaseDate {
  year: number;
  month: number;
  day: number;
}

/** What a series' books say together beyond the series' own fields (Komga's booksMetadata). */
export interface SeriesBooksMetadata {
  tags: string[];
  /** The earliest release of the series' books. */
  releaseDate: ReleaseDate | null;
  /** The summary of the first book (in number order) that has one, and that book's number. */
  summary: string | null;
  summaryNumber: number | null;
  created: Date | null;
  lastModified: Date | null;
}

export interface CatalogueFacets {
  genres: string[];
  tags: string[];
  /** Youngest first. */
  ageRatings: number[];
  publishers: string[];
  languages: string[];
  releaseYears: number[];
  authors: Author[];
}

export function releaseDateOf(book: Pick<BookMetadataRow, "year" | "metadata">): ReleaseDate | null {
  if (book.year === null) return null;
  return { year: book.year, month: book.metadata.month ?? 1, day: book.metadata.day ?? 1 };
}

const dateKey = (date: ReleaseDate) => date.year * 10_000 + date.month * 100 + date.day;

export class CatalogueMetadataService {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
  ) {}

  /** For each of these series (the caller may see them) the combined metadata of its present books. */
  async ofSeries(caller: Caller, seriesIds: string[]): Promise<Map<string, SeriesBooksMetadata>> {
    const result = new Map<string, SeriesBooksMetadata>();
    if (seriesIds.length === 0) return result;
    const rows = await this.bookRows(caller, { seriesIds });
    for (const seriesId of seriesIds) result.set(seriesId, combine(rows.filter((row) => row.seriesId === seriesId)));
    return result;
  }

  /** A series' page: what its present books say together, and the values its book filters offer (bookFacets), from one read of them. */
  async ofSeriesBooks(caller: Caller, seriesId: string): Promise<{ combined: SeriesBooksMetadata; facets: CatalogueFacets }> {
    const rows = await this.bookRows(caller, { seriesIds: [seriesId] });
    return { combined: combine(rows), facets: facetsOfBooks(rows) };
  }

  /**
   * The values series filters match, over the series (with a present book) the caller may see,
   * optionally in some libraries or of some series only: each series' own genres, tags,
   * authors, publisher, language and age rating, and the year of its earliest book (its release
   * date as Komga aggregates it, which the Komga API's release-date conditions match; the web's
   * year range, typed in, matches the series' own year).
   */
  async seriesFacets(caller: Caller, filter: { libraryIds?: string[]; seriesIds?: string[] } = {}): Promise<CatalogueFacets> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    const ofSeries = { libraryIds: filter.libraryIds, ids: filter.seriesIds, withPresentBooks: true, seriesVisible };
    const { series } = this.repositories;
    const [genres, tags, ageRatings, own, releaseYears, authors] = await Promise.all([
      series.valuesOf("genre", ofSeries),
      series.valuesOf("tag", ofSeries),
      series.ageRatingsOf(ofSeries),
      series.ownValuesOf(ofSeries),
      series.releaseYearsOf(ofSeries),
      series.authorsOf(ofSeries),
    ]);
    return {
      genres: distinctIgnoringCase(genres),
      tags: distinctIgnoringCase(tags),
      ageRatings,
      publishers: distinctIgnoringCase(own.publishers),
      languages: distinctIgnoringCase(own.languages),
      releaseYears,
      authors: distinctAuthors(authors),
    };
  }

  /** The values book filters match, over the present books the caller may see, optionally in some libraries or series only: each book's own. */
  async bookFacets(caller: Caller, filter: { libraryIds?: string[]; seriesIds?: string[] } = {}): Promise<CatalogueFacets> {
    return facetsOfBooks(await this.bookRows(caller, filter));
  }

  /** The present books the caller may see, in series then number order. */
  private async bookRows(caller: Caller, filter: { libraryIds?: string[]; seriesIds?: string[] }): Promise<BookMetadataRow[]> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    return this.repositories.books.metadataOf({ ...filter, deleted: false, seriesVisible });
  }
}

/** The distinct values of these books' own metadata (bookFacets). */
function facetsOfBooks(rows: readonly BookMetadataRow[]): CatalogueFacets {
  const each = <T>(pick: (row: BookMetadataRow) => T | T[] | null | undefined) =>
    rows.flatMap((row) => {
      const value = pick(row);
      return value === null || value === undefined || value === "" ? [] : Array.isArray(value) ? value : [value];
    });
  return {
    genres: distinctIgnoringCase(each((row) => row.metadata.genres)),
    tags: distinctIgnoringCase(each((row) => row.metadata.tags)),
    ageRatings: [...new Set(each((row) => row.metadata.ageRating))].sort((a, b) => a - b),
    publishers: distinctIgnoringCase(each((row) => row.metadata.publisher)),
    languages: distinctIgnoringCase(each((row) => row.metadata.language)),
    releaseYears: newestFirst(each((row) => row.year)),
    authors: distinctAuthors(each((row) => row.metadata.authors)),
  };
}

const newestFirst = (years: readonly number[]) => [...new Set(years)].sort((a, b) => b - a);

/** `rows` are one series' books in number order. */
function combine(rows: BookMetadataRow[]): SeriesBooksMetadata {
  const dates = rows.flatMap((row) => releaseDateOf(row) ?? []);
  const withSummary = rows.find((row) => row.summary);
  const times = (pick: (row: BookMetadataRow) => Date) => rows.map((row) => pick(row).getTime());
  return {
    tags: distinctIgnoringCase(rows.flatMap((row) => row.metadata.tags ?? [])),
    releaseDate: dates.length === 0 ? null : dates.reduce((first, date) => (dateKey(date) < dateKey(first) ? date : first)),
    summary: withSummary?.summary ?? null,
    summaryNumber: withSummary?.numberSort ?? null,
    created: rows.length === 0 ? null : new Date(Math.min(...times((row) => row.createdAt))),
    lastModified: rows.length === 0 ? null : new Date(Math.max(...times((row) => row.updatedAt))),
  };
}

/**
 * An edit's genres, tags and authors as kept (a series' or a book's): each value trimmed, once
 * ignoring case, sorted, as a scan settles them (the filters' rows are one per value). Lists
 * the edit does not hold stay out.
 */
export function editedLists(edit: { genres?: string[]; tags?: string[]; authors?: Author[] }): { genres?: string[]; tags?: string[]; authors?: Author[] } {
  const values = (list: string[]) => distinctIgnoringCase(list.map((value) => value.trim()).filter(Boolean));
  return {
    ...(edit.genres && { genres: values(edit.genres) }),
    ...(edit.tags && { tags: values(edit.tags) }),
    ...(edit.authors && { authors: distinctAuthors(edit.authors.map((author) => ({ name: author.name.trim(), role: author.role.trim() }))) }),
  };
}

/** Distinct authors (name ignoring case, and role; the first spelling wins), sorted by name then role. */
export function distinctAuthors(authors: readonly Author[]): Author[] {
  const byKey = new Map<string, Author>();
  for (const author of authors) {
    const key = `${author.name.toLowerCase()}\u0000${author.role}`;
    if (!byKey.has(key)) byKey.set(key, { name: author.name, role: author.role });
  }
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name) || a.role.localeCompare(b.role));
}

/** Distinct values ignoring case (the first spelling wins), sorted. */
export function distinctIgnoringCase(values: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const value of values) if (!byKey.has(value.toLowerCase())) byKey.set(value.toLowerCase(), value);
  return [...byKey.values()].sort((a, b) => a.localeCompare(b));
}
