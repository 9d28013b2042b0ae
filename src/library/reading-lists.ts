/**
 * Collections (of series), read lists (of books) and want-to-read, as callers see them
 * (issue 33). Komga's model: a list an admin shares is everyone's and only admins change it;
 * any user also keeps private lists of their own, which nobody else sees.
 *
 * Sharing tags hold inside every list: a viewer sees, counts and steps through (next/previous
 * book) only the items they may see; a shared list holding nothing they may see is not shown to
 * them at all. Items a viewer cannot see stay in the list for those who can: a reorder by that
 * viewer keeps them, after the ones given.
 */
import type { BookView, ListKind, ListViewer, ReadingListFilter, ReadingListRecord, Repositories, SeriesView } from "../db";
import { DomainError, invalidFields, notFound } from "../errors";
import type { AccessService } from "../access/visibility";
import type { Caller } from "./books";

/** Items one list holds at most: a list is read whole to order it. */
export const MAX_LIST_ITEMS = 10_000;
/** A list's name is at most this long (also a name taken from an imported file). */
export const MAX_LIST_NAME = 200;

export interface ReadingListInput {
  name?: string;
  summary?: string | null;
  ordered?: boolean;
  /** Shared with everyone (admins only); else the caller's own. */
  shared?: boolean;
  /** Series ids (collections) or book ids (read lists), in order. */
  itemIds?: string[];
}

const NOUN: Record<ListKind, { list: string; item: string; items: string }> = {
  collection: { list: "collection", item: "series", items: "seriesIds" },
  readlist: { list: "read list", item: "book", items: "bookIds" },
};

export class ReadingListService {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
  ) {}

  private async viewer(caller: Caller): Promise<ListViewer> {
    return { userId: caller.id, seriesVisible: await this.access.seriesVisibility(caller), hideEmptyShared: caller.role !== "admin" };
  }

  async list(caller: Caller, kind: ListKind, filter: ReadingListFilter, page: { offset: number; limit: number }): Promise<{ rows: ReadingListRecord[]; total: number }> {
    return this.repositories.readingLists.find(kind, await this.viewer(caller), filter, page);
  }

  /** The list, or 404 when it does not exist or is not shown to the caller. */
  async get(caller: Caller, kind: ListKind, id: string): Promise<ReadingListRecord> {
    const list = await this.repositories.readingLists.findOne(kind, id, await this.viewer(caller));
    if (!list) throw notFound(NOUN[kind].list);
    return list;
  }

  /** Whether the caller may change the list: their own, or a shared one for an admin. */
  canEdit(caller: Caller, list: Pick<ReadingListRecord, "ownerId">): boolean {
    return list.ownerId === null ? caller.role === "admin" : list.ownerId === caller.id;
  }

  /** The ids of the list's items the caller may see, in the list's order. */
  async itemIds(caller: Caller, kind: ListKind, id: string): Promise<string[]> {
    return this.repositories.readingLists.itemIds(kind, id, { seriesVisible: await this.access.seriesVisibility(caller) });
  }

  /**
   * The series of the list's items the caller may see (a collection's series, a read list's
   * books' series), ids only; 404 when the list is not shown to the caller.
   */
  async seriesOf(caller: Caller, kind: ListKind, id: string): Promise<string[]> {
    await this.get(caller, kind, id);
    const itemIds = await this.itemIds(caller, kind, id);
    return kind === "collection" ? itemIds : this.repositories.settlement.seriesOfBooks(itemIds);
  }

  /**
   * The ids of the list's items the caller may see, in order, and whether that leaves any out
   * (Komga's `filtered`).
   */
  async itemsOf(caller: Caller, kind: ListKind, id: string): Promise<{ ids: string[]; filtered: boolean }> {
    const ids = await this.itemIds(caller, kind, id);
    const stored = await this.repositories.readingLists.itemIds(kind, id, "all");
    return { ids, filtered: stored.length > ids.length };
  }

  async create(caller: Caller, kind: ListKind, input: ReadingListInput): Promise<ReadingListRecord> {
    const shared = input.shared ?? caller.role === "admin";
    if (shared && caller.role !== "admin") throw new DomainError("Forbidden", `only an admin shares a ${NOUN[kind].list} with everyone`);
    const ownerId = shared ? null : caller.id;
    const name = requiredName(input.name);
    await this.requireFreeName(kind, ownerId, name);
    const itemIds = await this.checkedItems(caller, kind, input.itemIds ?? []);
    const id = await this.repositories.readingLists.create(
      { kind, name, summary: input.summary ?? null, ordered: input.ordered ?? kind === "readlist", ownerId },
      itemIds,
    );
    if (!id) throw nameTaken(kind);
    return this.get(caller, kind, id);
  }

  /**
   * Changes fields; `itemIds` given, it becomes the order of the items the caller sees (items
   * hidden from the caller are kept, after them).
   */
  async update(caller: Caller, kind: ListKind, id: string, input: Omit<ReadingListInput, "shared">): Promise<ReadingListRecord> {
    const list = await this.editable(caller, kind, id);
    const name = input.name === undefined ? undefined : requiredName(input.name);
    if (name !== undefined) await this.requireFreeName(kind, list.ownerId, name, id);
    let order: string[] | undefined;
    if (input.itemIds) {
      const given = await this.checkedItems(caller, kind, input.itemIds);
      const visible = new Set(await this.itemIds(caller, kind, id));
      const hidden = (await this.repositories.readingLists.itemIds(kind, id, "all")).filter((itemId) => !visible.has(itemId));
      order = [...given, ...hidden.filter((itemId) => !given.includes(itemId))];
      tooMany(kind, order.length);
    }
    await this.repositories.readingLists.update(kind, id, { name, summary: input.summary, ordered: input.ordered }, order);
    return this.get(caller, kind, id);
  }

  async delete(caller: Caller, kind: ListKind, id: string): Promise<void> {
    await this.editable(caller, kind, id);
    await this.repositories.readingLists.delete(id);
  }

  /** Adds items after the list's last one (those already in it stay where they are). */
  async addItems(caller: Caller, kind: ListKind, id: string, itemIds: string[]): Promise<ReadingListRecord> {
    await this.editable(caller, kind, id);
    const added = await this.checkedItems(caller, kind, itemIds);
    const stored = new Set(await this.repositories.readingLists.itemIds(kind, id, "all"));
    tooMany(kind, stored.size + added.filter((itemId) => !stored.has(itemId)).length);
    await this.repositories.readingLists.append(kind, id, added);
    return this.get(caller, kind, id);
  }

  async removeItem(caller: Caller, kind: ListKind, id: string, itemId: string): Promise<void> {
    await this.editable(caller, kind, id);
    const visible = await this.itemIds(caller, kind, id);
    if (!visible.includes(itemId) || !(await this.repositories.readingLists.removeItem(kind, id, itemId))) throw notFound(`${NOUN[kind].item} in this ${NOUN[kind].list}`);
  }

  /** A page of the collection's series the caller may see, in the collection's order. */
  async series(caller: Caller, id: string, page: { offset: number; limit: number }): Promise<{ rows: SeriesView[]; total: number }> {
    await this.get(caller, "collection", id);
    const ordered = await this.itemIds(caller, "collection", id);
    const ids = ordered.slice(page.offset, page.offset + page.limit);
    if (ids.length === 0) return { rows: [], total: ordered.length };
    const seriesVisible = await this.access.seriesVisibility(caller);
    const { rows } = await this.repositories.series.find({ ids, seriesVisible, withPresentBooks: true }, caller.id, { offset: 0, limit: ids.length });
    return { rows: inOrderOf(ids, rows), total: ordered.length };
  }

  /** A page of the read list's books the caller may see, in the list's order. */
  async books(caller: Caller, id: string, page: { offset: number; limit: number }): Promise<{ rows: BookView[]; total: number }> {
    await this.get(caller, "readlist", id);
    const ordered = await this.itemIds(caller, "readlist", id);
    const ids = ordered.slice(page.offset, page.offset + page.limit);
    const seriesVisible = await this.access.seriesVisibility(caller);
    return { rows: await this.repositories.books.named({ ids, deleted: false, seriesVisible }, caller.id), total: ordered.length };
  }

  /**
   * The book after (or before) `bookId` in the read list among those the caller may see; 404
   * when there is none, or when the book is not one of them.
   */
  async adjacentBook(caller: Caller, id: string, bookId: string, direction: "next" | "previous"): Promise<BookView> {
    await this.get(caller, "readlist", id);
    const ordered = await this.itemIds(caller, "readlist", id);
    const position = ordered.indexOf(bookId);
    if (position < 0) throw notFound("book in this read list");
    const neighbour = ordered[direction === "next" ? position + 1 : position - 1];
    if (!neighbour) throw notFound(`${direction} book`);
    const seriesVisible = await this.access.seriesVisibility(caller);
    const [book] = await this.repositories.books.named({ ids: [neighbour], deleted: false, seriesVisible }, caller.id);
    if (!book) throw notFound(`${direction} book`);
    return book;
  }

  /** The caller's want-to-read series they may see, by name. */
  async wantToRead(caller: Caller, page: { offset: number; limit: number }): Promise<{ rows: SeriesView[]; total: number }> {
    const ids = await this.repositories.readingLists.wantToReadIds(caller.id);
    if (ids.length === 0) return { rows: [], total: 0 };
    const seriesVisible = await this.access.seriesVisibility(caller);
    return this.repositories.series.find({ ids, seriesVisible, withPresentBooks: true }, caller.id, page);
  }

  /** Whether the series is in the caller's want-to-read. */
  async inWantToRead(caller: Caller, seriesId: string): Promise<boolean> {
    return (await this.repositories.readingLists.wantToReadIds(caller.id)).includes(seriesId);
  }

  async addWantToRead(caller: Caller, seriesId: string): Promise<void> {
    if (!(await this.repositories.readingLists.visibleItems("collection", [seriesId], await this.access.seriesVisibility(caller))).has(seriesId)) {
      throw notFound("series");
    }
    await this.repositories.readingLists.addWantToRead(caller.id, seriesId);
  }

  async removeWantToRead(caller: Caller, seriesId: string): Promise<void> {
    if (!(await this.repositories.readingLists.removeWantToRead(caller.id, seriesId))) throw notFound("series in want-to-read");
  }

  private async editable(caller: Caller, kind: ListKind, id: string): Promise<ReadingListRecord> {
    const list = await this.get(caller, kind, id);
    if (!this.canEdit(caller, list)) throw new DomainError("Forbidden", `only an admin changes a shared ${NOUN[kind].list}`);
    return list;
  }

  private async requireFreeName(kind: ListKind, ownerId: string | null, name: string, except?: string): Promise<void> {
    if (await this.repositories.readingLists.nameTaken(kind, ownerId, name, except)) throw nameTaken(kind);
  }

  /** The ids without repeats, once every one names an item the caller may see; else 422 naming the others. */
  private async checkedItems(caller: Caller, kind: ListKind, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    tooMany(kind, unique.length);
    const visible = await this.repositories.readingLists.visibleItems(kind, unique, await this.access.seriesVisibility(caller));
    const unknown = unique.filter((id) => !visible.has(id));
    if (unknown.length > 0) {
      throw new DomainError("UnprocessableEntity", `no such ${NOUN[kind].item}: ${unknown.join(", ")}`, { fields: { [NOUN[kind].items]: "unknown ids" }, unknown });
    }
    return unique;
  }
}

const nameTaken = (kind: ListKind) => new DomainError("Conflict", `a ${NOUN[kind].list} with this name already exists`, { fields: { name: "taken" } });

function requiredName(name: string | undefined): string {
  const trimmed = name?.trim() ?? "";
  if (trimmed.length === 0) throw invalidFields("UnprocessableEntity", { name: "must not be blank" });
  if (trimmed.length > MAX_LIST_NAME) throw invalidFields("UnprocessableEntity", { name: `must be at most ${MAX_LIST_NAME} characters` });
  return trimmed;
}

function tooMany(kind: ListKind, count: number): void {
  if (count > MAX_LIST_ITEMS) throw invalidFields("UnprocessableEntity", { [NOUN[kind].items]: `more than ${MAX_LIST_ITEMS} items` });
}

function inOrderOf<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
