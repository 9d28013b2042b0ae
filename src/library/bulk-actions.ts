/**
 * What the web interface's multi-select does to several series or books at once (issues 32 and
 * 33): mark read or unread, re-analyze, edit metadata. Every action first resolves the whole selection as the
 * caller may see it: one id that is unknown or hidden by sharing tags refuses the whole request
 * (422 naming it) before anything changes, so a selection never half-happens because of what
 * it named. Adding to collections and read lists goes through ReadingListService, which checks
 * the same way.
 */
import type { BookEdit, BookView, Repositories, SeriesEdit, SeriesView } from "../db";
import { DomainError } from "../errors";
import type { AccessService } from "../access/visibility";
import type { BookService, Caller } from "./books";
import type { ProgressService } from "./progress";
import type { SeriesService } from "./series";

/** Ids one action takes at most (a page of covers holds far fewer; "select all" selects what is loaded). */
export const MAX_SELECTION = 2000;

export type SelectionKind = "series" | "books";

/** Every book of a series, for acting on them all (a series holds far fewer). */
const WHOLE_SERIES = { offset: 0, limit: 100_000 };

export interface ReanalysisOutcome {
  done: number;
  /** The books that could not be read again, with why. */
  failed: { title: string; message: string }[];
}

export class BulkActions {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
    private readonly series: SeriesService,
    private readonly books: BookService,
    private readonly progress: ProgressService,
  ) {}

  /** The series, in the order given, once every id names one the caller may see; else 422. */
  async seriesNamed(caller: Caller, ids: string[]): Promise<SeriesView[]> {
    const unique = selection(ids);
    const seriesVisible = await this.access.seriesVisibility(caller);
    const { rows } = await this.repositories.series.find({ ids: unique, seriesVisible, withPresentBooks: true }, caller.id, { offset: 0, limit: unique.length });
    return allNamed(unique, rows, "series");
  }

  /** The present books, in the order given, once every id names one the caller may see; else 422. */
  async booksNamed(caller: Caller, ids: string[]): Promise<BookView[]> {
    const unique = selection(ids);
    const seriesVisible = await this.access.seriesVisibility(caller);
    return allNamed(unique, await this.repositories.books.named({ ids: unique, deleted: false, seriesVisible }, caller.id), "book");
  }

  /** The selected series or books (as seriesNamed and booksNamed check them). */
  async named(caller: Caller, kind: SelectionKind, ids: string[]): Promise<SeriesView[] | BookView[]> {
    return kind === "series" ? this.seriesNamed(caller, ids) : this.booksNamed(caller, ids);
  }

  /** The books an action on the selection acts on: the selected books, or every book of the selected series. */
  async booksOf(caller: Caller, kind: SelectionKind, ids: string[]): Promise<BookView[]> {
    if (kind === "books") return this.booksNamed(caller, ids);
    const series = await this.seriesNamed(caller, ids);
    const books = await Promise.all(series.map(async (entry) => (await this.series.books(caller, entry.id, WHOLE_SERIES)).rows));
    return books.flat();
  }

  /** Marks the selection (its books) read or unread, all in one transaction; answers how many books were marked. */
  async markRead(caller: Caller, kind: SelectionKind, ids: string[], read: boolean): Promise<number> {
    return this.progress.markRead(caller, await this.booksOf(caller, kind, ids), read);
  }

  /**
   * Sets the same fields of every selected series or book (admin), each locked as a single edit
   * locks it, all in one transaction: one refused record (it went away meanwhile) leaves every
   * other as it was. Fields not in `change` are left alone. Answers how many records changed.
   */
  async editMetadata(caller: Caller, kind: SelectionKind, ids: string[], change: SeriesEdit | Omit<BookEdit, "numberSort">): Promise<number> {
    const selected = await this.named(caller, kind, ids);
    await this.repositories.edits.together(async () => {
      if (kind === "books") return this.books.editMany(caller, selected.map((record) => record.id), change as Omit<BookEdit, "numberSort">);
      for (const record of selected) await this.series.edit(caller, record.id, change as SeriesEdit);
    });
    return selected.length;
  }

  /**
   * Re-reads the selection's books (admin). The whole selection is checked first; a book whose
   * file cannot be read now (gone, moved outside its library) is reported and the others go on,
   * as a scan would.
   */
  async reanalyze(caller: Caller, kind: SelectionKind, ids: string[]): Promise<ReanalysisOutcome> {
    const outcome: ReanalysisOutcome = { done: 0, failed: [] };
    for (const book of await this.booksOf(caller, kind, ids)) {
      try {
        await this.books.reanalyze(caller, book.id);
        outcome.done += 1;
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind !== "Conflict") throw error;
        outcome.failed.push({ title: book.title, message: error.message });
      }
    }
    return outcome;
  }
}

function selection(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw new DomainError("UnprocessableEntity", "nothing is selected", { fields: { ids: "empty" } });
  if (unique.length > MAX_SELECTION) throw new DomainError("UnprocessableEntity", `at most ${MAX_SELECTION} can be selected at once`, { fields: { ids: "too many" } });
  return unique;
}

/** The rows in the order of `ids`, or 422 naming the ids without one (unknown, or hidden from the caller). */
function allNamed<T extends { id: string }>(ids: string[], rows: T[], noun: string): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0) throw new DomainError("UnprocessableEntity", `no such ${noun}: ${unknown.join(", ")}`, { fields: { ids: "unknown ids" }, unknown });
  return ids.map((id) => byId.get(id)!);
}
