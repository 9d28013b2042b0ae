/**
 * Series as callers see them: always through the caller's sharing-tag visibility (a hidden
 * series does not exist), with the caller's read counts. Admins edit series fields; edited
 * fields are locked against later scans.
 */
import type { BookView, Repositories, SeriesEdit, SeriesFilter, SeriesSort, SeriesView } from "../db";
import { sortName } from "../db";
import { notFound } from "../errors";
import type { AccessService } from "../access/visibility";
import { inSeriesOrder } from "./series-order";
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
    if (!(await this.repositories.edits.editSeries(id, withSortName))) throw notFound("series");
    return this.get(caller, id);
  }

  /**
   * The series' present books in reading order (./series-order.ts): by number, then the
   * unnumbered in natural order of their names ("Part 2" before "Part 10"). SQL cannot sort naturally on both databases, so
   * the order is computed over the series' order keys (small rows, one series) and only the
   * requested page of books is then loaded.
   */
  async books(caller: Caller, seriesId: string, page: { offset: number; limit: number }): Promise<{ rows: BookView[]; total: number }> {
    await this.get(caller, seriesId);
    const ordered = await this.orderedBookIds(seriesId);
    const ids = ordered.slice(page.offset, page.offset + page.limit);
    if (ids.length === 0) return { total: ordered.length, rows: [] };
    return { total: ordered.length, rows: await this.repositories.books.named({ ids }, caller.id) };
  }

  /** The id of the series' first book in reading order (its thumbnail stands for the series). */
  /** The series' first present book in reading order, for a series the caller already got. */
  async firstBookId(seriesId: string): Promise<string | undefined> {
    return (await this.orderedBookIds(seriesId))[0];
  }

  /**
   * The book after `book` in its series' reading order (what the reader offers at the end), or
   * undefined for the last. The caller already got `book`, so the series is visible to them.
   */
  async nextBook(caller: Caller, book: Pick<BookView, "id" | "seriesId">): Promise<BookView | undefined> {
    const ordered = await this.orderedBookIds(book.seriesId);
    const position = ordered.indexOf(book.id);
    const nextId = position >= 0 ? ordered[position + 1] : undefined;
    if (!nextId) return undefined;
    return (await this.repositories.books.named({ ids: [nextId] }, caller.id))[0];
  }

  /** The present books of a series in reading order (./series-order.ts, as their `seriesPosition`). */
  async orderedBookIds(seriesId: string): Promise<string[]> {
    return inSeriesOrder(await this.repositories.books.orderKeys({ seriesId, deleted: false })).map((key) => key.id);
  }
}
