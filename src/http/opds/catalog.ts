/**
 * The OPDS catalogue as one version-neutral model: which feeds exist, what each holds, how they
 * link and page. The v1.2 (Atom) and v2 (JSON) renderers turn the same Feed into their own
 * syntax, so both versions always offer the same navigation from the same queries. Everything
 * goes through the library services, so sharing-tag visibility applies as everywhere else.
 */
import type { BookView, ListKind, SeriesView } from "../../db";
import type { Caller } from "../../library/books";
import type { Services } from "../../services";
import type { PageRequest } from "../paging";

export type FeedKind = "navigation" | "acquisition";

/** A feed of the catalogue, by its path below the version's root (`series/{id}`) and query. */
export interface FeedRef {
  path: string;
  query?: Record<string, string>;
}

export interface Paging {
  /** 1-based. */
  page: number;
  pageSize: number;
  total: number;
}

/** An entry leading to another feed. */
export interface NavigationEntry {
  /** A stable IRI (Atom id). */
  id: string;
  title: string;
  description?: string;
  updated?: Date;
  target: FeedRef;
  targetKind: FeedKind;
  /** "Recently added" is a sort order; everything else is a subsection. */
  relation: "subsection" | "http://opds-spec.org/sort/new";
  /** The series whose thumbnail illustrates the entry. */
  seriesId?: string;
}

/** A book that can be acquired. */
export interface PublicationEntry {
  book: BookView;
  /** Every page is an image, so the book can be read page by page (OPDS-PSE). */
  streamable: boolean;
}

export interface Feed {
  id: string;
  title: string;
  kind: FeedKind;
  self: FeedRef;
  /** The parent feed; absent for the root. */
  up?: FeedRef;
  paging?: Paging;
  navigation: NavigationEntry[];
  publications: PublicationEntry[];
  /** The newest change among the entries (Atom's feed-level `updated`). */
  updated: Date;
}

export const ROOT: FeedRef = { path: "catalog" };
const ALL_SERIES: FeedRef = { path: "series" };
const RECENT: FeedRef = { path: "recent" };
const CONTINUE_READING: FeedRef = { path: "continue-reading" };

/** The caller's lists, offered at the root; ./list-feeds.ts serves them under the same ids, titles and paths. */
export const LIST_FEEDS = {
  collection: { id: "urn:longbox:collections", title: "Collections", description: "Groups of series", target: { path: "collections" }, targetKind: "navigation", relation: "subsection" },
  readlist: { id: "urn:longbox:readlists", title: "Read lists", description: "Books of any series in reading order", target: { path: "readlists" }, targetKind: "navigation", relation: "subsection" },
  wantToRead: { id: "urn:longbox:want-to-read", title: "Want to read", description: "Series you want to read", target: { path: "want-to-read" }, targetKind: "navigation", relation: "subsection" },
} as const satisfies Record<ListKind | "wantToRead", NavigationEntry>;

type CatalogServices = Pick<Services, "libraries" | "series" | "books" | "pages">;

export class OpdsCatalog {
  constructor(private readonly services: CatalogServices) {}

  /** The root: what the caller is reading, what is new, every series, each library. */
  async root(caller: Caller): Promise<Feed> {
    const libraries = await this.services.libraries.list(caller);
    const navigation: NavigationEntry[] = [
      {
        id: "urn:longbox:continue-reading",
        title: "Continue reading",
        description: "Books you have started and not finished, the most recently read first",
        target: CONTINUE_READING,
        targetKind: "acquisition",
        relation: "subsection",
      },
      {
        id: "urn:longbox:recent",
        title: "Recently added",
        description: "The newest books in the catalogue",
        target: RECENT,
        targetKind: "acquisition",
        relation: "http://opds-spec.org/sort/new",
      },
      ...Object.values(LIST_FEEDS),
      {
        id: "urn:longbox:series",
        title: "All series",
        description: "Every series, by name",
        target: ALL_SERIES,
        targetKind: "navigation",
        relation: "subsection",
      },
      ...libraries.map(
        (library): NavigationEntry => ({
          id: `urn:uuid:${library.id}`,
          title: library.name,
          description: `${library.seriesCount} series, ${library.bookCount} books`,
          updated: new Date(library.updatedAt),
          target: { path: `libraries/${library.id}` },
          targetKind: "navigation",
          relation: "subsection",
        }),
      ),
    ];
    return feed({ id: "urn:longbox:catalog", title: "Longbox", kind: "navigation", self: ROOT, navigation });
  }

  /** A library's series, by name. */
  async library(caller: Caller, libraryId: string, page: PageRequest): Promise<Feed> {
    const library = await this.services.libraries.get(caller, libraryId);
    const { rows, total } = await this.services.series.list(caller, { libraryId }, window(page));
    return feed({
      id: `urn:uuid:${library.id}`,
      title: library.name,
      kind: "navigation",
      self: { path: `libraries/${library.id}` },
      up: ROOT,
      paging: { page: page.page, pageSize: page.pageSize, total },
      navigation: rows.map(seriesEntry),
    });
  }

  /** Every visible series, by name. */
  async allSeries(caller: Caller, page: PageRequest): Promise<Feed> {
    const { rows, total } = await this.services.series.list(caller, {}, window(page));
    return feed({
      id: "urn:longbox:series",
      title: "All series",
      kind: "navigation",
      self: ALL_SERIES,
      up: ROOT,
      paging: { page: page.page, pageSize: page.pageSize, total },
      navigation: rows.map(seriesEntry),
    });
  }

  /** One series' books in reading order. */
  async series(caller: Caller, seriesId: string, page: PageRequest): Promise<Feed> {
    const series = await this.services.series.get(caller, seriesId);
    const { rows, total } = await this.services.series.books(caller, seriesId, window(page));
    return feed({
      id: `urn:uuid:${series.id}`,
      title: series.name,
      kind: "acquisition",
      self: { path: `series/${series.id}` },
      up: { path: `libraries/${series.libraryId}` },
      paging: { page: page.page, pageSize: page.pageSize, total },
      publications: await this.publications(rows),
    });
  }

  async recentlyAdded(caller: Caller, page: PageRequest): Promise<Feed> {
    const { rows, total } = await this.services.books.recentlyAdded(caller, window(page));
    return feed({
      id: "urn:longbox:recent",
      title: "Recently added",
      kind: "acquisition",
      self: RECENT,
      up: ROOT,
      paging: { page: page.page, pageSize: page.pageSize, total },
      publications: await this.publications(rows),
    });
  }

  async continueReading(caller: Caller, page: PageRequest): Promise<Feed> {
    const { rows, total } = await this.services.books.continueReading(caller, window(page));
    return feed({
      id: "urn:longbox:continue-reading",
      title: "Continue reading",
      kind: "acquisition",
      self: CONTINUE_READING,
      up: ROOT,
      paging: { page: page.page, pageSize: page.pageSize, total },
      publications: await this.publications(rows),
    });
  }

  /**
   * Books whose title, series name or author's name contains the text, in series order. Books
   * rather than series, so that a reader can download straight from the results; a series
   * name still finds all of its books.
   */
  async search(caller: Caller, text: string, page: PageRequest): Promise<Feed> {
    const { rows, total } = await this.services.books.list(caller, { q: text, deleted: false }, window(page));
    return feed({
      id: "urn:longbox:search",
      title: `Search: ${text}`,
      kind: "acquisition",
      self: { path: "search", query: { q: text } },
      up: ROOT,
      paging: { page: page.page, pageSize: page.pageSize, total },
      publications: await this.publications(rows),
    });
  }

  async publications(books: BookView[]): Promise<PublicationEntry[]> {
    const streamable = await this.services.pages.imageOnly(books);
    return books.map((book) => ({ book, streamable: streamable.has(book.id) }));
  }
}

export function window(page: PageRequest): { offset: number; limit: number } {
  return { offset: page.offset, limit: page.pageSize };
}

export function seriesEntry(series: SeriesView): NavigationEntry {
  const books = `${series.bookCount} ${series.bookCount === 1 ? "book" : "books"}`;
  return {
    id: `urn:uuid:${series.id}`,
    title: series.name,
    description: series.summary ? `${books}. ${series.summary}` : books,
    updated: series.updatedAt,
    target: { path: `series/${series.id}` },
    targetKind: "acquisition",
    relation: "subsection",
    seriesId: series.id,
  };
}

export function feed(parts: Omit<Feed, "navigation" | "publications" | "updated"> & Partial<Pick<Feed, "navigation" | "publications">>): Feed {
  const navigation = parts.navigation ?? [];
  const publications = parts.publications ?? [];
  const times = [...navigation.map((entry) => entry.updated), ...publications.map((entry) => entry.book.updatedAt)]
    .filter((time): time is Date => time !== undefined)
    .map((time) => time.getTime());
  return { ...parts, navigation, publications, updated: times.length > 0 ? new Date(Math.max(...times)) : new Date() };
}
