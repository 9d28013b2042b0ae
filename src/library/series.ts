/**
 * Series as callers see them: always through the caller's sharing-tag visibility (a hidden
 * series does not exist), with the caller's read counts. Admins edit series fields; edited
 * fields are locked against later scans.
 */
import type { BookFilter, BookView, Repositories, SeriesEdit, SeriesFilter, SeriesSort, SeriesView } from "../db";
import { sortName } from "../db";
import { notFound } from "../errors";
import { editedLists } from "./catalogue-metadata";
import type { AccessService } from "../access/visibility";
import type { Caller } from "./books";

export class SeriesService {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
  ) {}

  /** Visible series that still hold a present book. */
  async list(
    caller: Caller,
    filter: Omit<SeriesFilter, "ids" | "withPresentBooks" | "seriesVisible">,
    page: { offset: number; limit: number },
    sort?: { field: SeriesSort; direction: "asc" | "desc" },
  ): Promise<{ rows: SeriesView[]; total: number }> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    return this.repositories.series.find({ ...filter, withPresentBooks: true, seriesVisible }, caller.id, page, sort);
  }

  /** The series, or 404 when it does not exist or the caller may not see it. */
  async get(caller: Caller, id: string): Promise<SeriesView> {
    const series = await this.repositories.series.findOne(id, caller.id, await this.access.seriesVisibility(caller));
    if (!series) throw notFound("series");
    return series;
  }

  /** Changes series fields (admin) and locks them; a new name also gets a new sort name unless one is given. */
  async edit(caller: Caller, id: string, edit: SeriesEdit): Promise<SeriesView> {
    await this.get(caller, id);
    const withSortName = edit.name !== undefined && edit.nameSort === undefined ? { ...edit, nameSort: sortName(edit.name) } : edit;
    if (!(await this.repositories.edits.editSeries(id, { ...withSortName, ...editedLists(edit) }))) throw notFound("series");
    return this.get(caller, id);
  }

  /**
   * Unlocks fields (admin): they keep their value until the next scan that settles the series
   * (a deep scan, or one that finds a book of it changed) writes its books' value again.
   */
  async unlock(caller: Caller, id: string, fields: readonly (keyof SeriesEdit)[]): Promise<SeriesView> {
    await this.get(caller, id);
    if (!(await this.repositories.edits.unlock("series", id, fields))) throw notFound("series");
    return this.get(caller, id);
  }

  /**
   * The series' present books in reading order (./series-order.ts, as their stored
   * `seriesPosition`); `only` those matching filters. One indexed query cuts the page.
   */
  async books(
    caller: Caller,
    seriesId: string,
    page: { offset: number; limit: number },
    only: Pick<BookFilter, "readStatus" | "metadata" | "years" | "maxAgeRating"> = {},
  ): Promise<{ rows: BookView[]; total: number }> {
    await this.get(caller, seriesId);
    return this.repositories.books.find({ ...only, seriesId, deleted: false }, caller.id, page, { field: "seriesPosition", direction: "asc" });
  }

  /**
   * The book after `book` in its series' reading order (what the reader offers at the end), or
   * undefined for the last. The caller already got `book`, so the series is visible to them.
   */
  nextBook(caller: Caller, book: Pick<BookView, "id" | "seriesId">): Promise<BookView | undefined> {
    return this.neighbour(caller, book, 1);
  }

  /** The book before `book` in its series' reading order, or undefined for the first (as nextBook). */
  previousBook(caller: Caller, book: Pick<BookView, "id" | "seriesId">): Promise<BookView | undefined> {
    return this.neighbour(caller, book, -1);
  }

  private async neighbour(caller: Caller, book: Pick<BookView, "id" | "seriesId">, step: 1 | -1): Promise<BookView | undefined> {
    const ordered = await this.orderedBookIds(book.seriesId);
    const position = ordered.indexOf(book.id);
    const neighbourId = position >= 0 ? ordered[position + step] : undefined;
    if (!neighbourId) return undefined;
    return (await this.repositories.books.named({ ids: [neighbourId] }, caller.id))[0];
  }

  /**
   * On deck: for each series the caller has read some of, with no book in progress, the next
   * unread book in reading order; the series read most recently first. A constant number of
   * queries: the page of series, then their next books at once.
   */
  async onDeck(caller: Caller, page: { offset: number; limit: number }): Promise<{ rows: BookView[]; total: number }> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    const { rows: series, total } = await this.repositories.series.find({ onDeckFor: caller.id, withPresentBooks: true, seriesVisible }, caller.id, page, {
      field: "lastRead",
      direction: "desc",
    });
    const next = await this.repositories.books.firstUnread(
      series.map((entry) => entry.id),
      caller.id,
    );
    const ids = series.flatMap((entry) => next.get(entry.id) ?? []);
    const books = await this.repositories.books.named({ ids }, caller.id);
    const byId = new Map(books.map((book) => [book.id, book]));
    return { total, rows: ids.map((id) => byId.get(id)).filter((book): book is BookView => book !== undefined) };
  }

  /** The ids of the present books of a series in reading order (./series-order.ts, as their `seriesPosition`), at most `limit`. */
  orderedBookIds(seriesId: string, limit?: number): Promise<string[]> {
    return this.repositories.books.idsInSeriesOrder(seriesId, limit);
  }
}
