/**
 * Users' lists (issue 33): collections (of series) and read lists (of books), and each user's
 * want-to-read series. Both kinds of list share one table and one set of queries; only the
 * item table differs (`collection_series`, `read_list_books`).
 *
 * Every read takes the viewer's sharing-tag condition (`seriesVisible`, from ./access.ts) and
 * counts, lists and orders only the items the viewer may see: a series that still holds a
 * present book, a present book, in a visible series. Hidden items stay stored (an admin or
 * another user sees them) but are never shown, counted or returned to this viewer.
 */
import { and, asc, count, eq, exists, inArray, isNull, max, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";
import { bytewise } from "./ordering";
import { containsIgnoringCase } from "./text-search";

export type ListKind = "collection" | "readlist";

export interface ReadingListRecord {
  id: string;
  kind: ListKind;
  name: string;
  summary: string | null;
  ordered: boolean;
  /** The owner of a private list; null for a list shared with everyone. */
  ownerId: string | null;
  /** The items the viewer may see. */
  itemCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewReadingList {
  kind: ListKind;
  name: string;
  summary: string | null;
  ordered: boolean;
  ownerId: string | null;
}

export interface ReadingListChanges {
  name?: string;
  summary?: string | null;
  ordered?: boolean;
}

/** Whose lists a viewer is shown: the shared ones and their own. */
export interface ListViewer {
  userId: string;
  seriesVisible: SQL | undefined;
  /** Shared lists holding nothing the viewer may see are left out (not for admins). */
  hideEmptyShared: boolean;
}

export interface ReadingListFilter {
  /** Text anywhere in the name, ignoring case. */
  q?: string;
  /** Only lists holding this (visible) item: a series for collections, a book for read lists. */
  containing?: string;
  /** Only these lists. */
  ids?: string[];
}

/** The lists `userId` is shown: the shared ones and their own (admins too see no one else's). */
function listShownTo(database: Database, userId: string): SQL {
  const lists = database.tables.readingLists;
  return or(isNull(lists.ownerId), eq(lists.ownerId, userId))!;
}

/**
 * The item (`item`: the series' or book's id column) is in the list `listId` of that kind, and
 * `userId` is shown the list; a list they are not shown holds nothing for them.
 */
export function inShownList(database: Database, kind: ListKind, listId: string, userId: string, item: SQLWrapper): SQL {
  const lists = database.tables.readingLists;
  const items = kind === "collection" ? database.tables.collectionSeries : database.tables.readListBooks;
  return exists(
    database
      .handle()
      .select({ one: sql`1` })
      .from(items)
      .innerJoin(lists, eq(lists.id, items.listId))
      .where(and(eq(items.listId, listId), eq(items.itemId, item), eq(lists.kind, kind), listShownTo(database, userId))),
  );
}

export class ReadingListRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  private itemTable(kind: ListKind) {
    return kind === "collection" ? this.database.tables.collectionSeries : this.database.tables.readListBooks;
  }

  /** The item row (of `kind`'s item table) is something the viewer may see. */
  private visibleItem(kind: ListKind, seriesVisible: SQL | undefined): SQL {
    const { series, books } = this.database.tables;
    const items = this.itemTable(kind);
    if (kind === "collection") {
      return exists(
        this.db
          .select({ one: sql`1` })
          .from(series)
          .where(and(eq(series.id, items.itemId), sql`${series.presentBookCount} > 0`, seriesVisible)),
      );
    }
    return exists(
      this.db
        .select({ one: sql`1` })
        .from(books)
        .innerJoin(series, eq(series.id, books.seriesId))
        .where(and(eq(books.id, items.itemId), eq(books.deleted, false), seriesVisible)),
    );
  }

  private visibleItemCount(kind: ListKind, seriesVisible: SQL | undefined): SQL<number> {
    const lists = this.database.tables.readingLists;
    const items = this.itemTable(kind);
    return sql<number>`(select count(*) from ${items} where ${items.listId} = ${lists.id} and ${this.visibleItem(kind, seriesVisible)})`.mapWith(Number);
  }

  private listConditions(kind: ListKind, viewer: ListViewer, filter: ReadingListFilter): SQL | undefined {
    const lists = this.database.tables.readingLists;
    const items = this.itemTable(kind);
    const holding = (condition: SQL | undefined) =>
      exists(this.db.select({ one: sql`1` }).from(items).where(and(eq(items.listId, lists.id), condition, this.visibleItem(kind, viewer.seriesVisible))));
    return and(
      eq(lists.kind, kind),
      listShownTo(this.database, viewer.userId),
      viewer.hideEmptyShared ? or(eq(lists.ownerId, viewer.userId), holding(undefined)) : undefined,
      filter.q ? containsIgnoringCase(lists.name, filter.q) : undefined,
      filter.containing ? holding(eq(items.itemId, filter.containing)) : undefined,
      filter.ids ? inArray(lists.id, filter.ids) : undefined,
    );
  }

  /** The lists the viewer is shown, by name. */
  async find(kind: ListKind, viewer: ListViewer, filter: ReadingListFilter, page: { offset: number; limit: number }): Promise<{ rows: ReadingListRecord[]; total: number }> {
    const lists = this.database.tables.readingLists;
    const where = this.listConditions(kind, viewer, filter);
    const rows = await this.db
      .select({
        id: lists.id,
        kind: lists.kind,
        name: lists.name,
        summary: lists.summary,
        ordered: lists.ordered,
        ownerId: lists.ownerId,
        itemCount: this.visibleItemCount(kind, viewer.seriesVisible),
        createdAt: lists.createdAt,
        updatedAt: lists.updatedAt,
      })
      .from(lists)
      .where(where)
      .orderBy(asc(bytewise(this.database, sql`lower(${lists.name})`)), asc(lists.id))
      .limit(page.limit)
      .offset(page.offset);
    const [totalRow] = await this.db.select({ n: count() }).from(lists).where(where);
    return { rows, total: totalRow?.n ?? 0 };
  }

  async findOne(kind: ListKind, id: string, viewer: ListViewer): Promise<ReadingListRecord | undefined> {
    return (await this.find(kind, viewer, { ids: [id] }, { offset: 0, limit: 1 })).rows[0];
  }

  /** Whether a list of that kind and name exists in the same scope (shared, or the owner's). */
  async nameTaken(kind: ListKind, ownerId: string | null, name: string, except?: string): Promise<boolean> {
    return (await this.named(kind, ownerId, name, except)) !== undefined;
  }

  /** The id of the list of that kind and name (ignoring case) in the scope (shared, or the owner's). */
  async named(kind: ListKind, ownerId: string | null, name: string, except?: string): Promise<string | undefined> {
    const lists = this.database.tables.readingLists;
    const [row] = await this.db
      .select({ id: lists.id })
      .from(lists)
      .where(
        and(
          eq(lists.kind, kind),
          ownerId === null ? isNull(lists.ownerId) : eq(lists.ownerId, ownerId),
          // lower() on both sides: SQLite's lower() folds ASCII only, as the unique indexes do.
          eq(sql`lower(${lists.name})`, sql`lower(${name})`),
          except ? sql`${lists.id} <> ${except}` : undefined,
        ),
      )
      .limit(1);
    return row?.id;
  }

  /**
   * A new list holding `itemIds` in that order, or undefined when the name is taken in its
   * scope (decided by the unique indexes, so two concurrent creations cannot both succeed).
   */
  async create(list: NewReadingList, itemIds: string[]): Promise<string | undefined> {
    const now = new Date();
    const id = newId();
    const lists = this.database.tables.readingLists;
    return this.database.transaction(async () => {
      const inserted = await this.db.insert(lists).values({ id, ...list, createdAt: now, updatedAt: now }).onConflictDoNothing().returning({ id: lists.id });
      if (inserted.length === 0) return undefined;
      await this.insertItems(list.kind, id, itemIds, 0);
      return id;
    });
  }

  /** Changes the list's fields and, when `itemIds` is given, makes it the complete item order. */
  async update(kind: ListKind, id: string, changes: ReadingListChanges, itemIds?: string[]): Promise<void> {
    const lists = this.database.tables.readingLists;
    const items = this.itemTable(kind);
    await this.database.transaction(async () => {
      await this.db.update(lists).set({ ...changes, updatedAt: new Date() }).where(eq(lists.id, id));
      if (itemIds) {
        await this.db.delete(items).where(eq(items.listId, id));
        await this.insertItems(kind, id, itemIds, 0);
      }
    });
  }

  /** Adds the items not in the list yet after its last one. */
  async append(kind: ListKind, id: string, itemIds: string[]): Promise<void> {
    const lists = this.database.tables.readingLists;
    const items = this.itemTable(kind);
    await this.database.transaction(async () => {
      const [last] = await this.db.select({ position: max(items.position) }).from(items).where(eq(items.listId, id));
      await this.insertItems(kind, id, itemIds, (last?.position ?? -1) + 1);
      await this.db.update(lists).set({ updatedAt: new Date() }).where(eq(lists.id, id));
    });
  }

  private async insertItems(kind: ListKind, listId: string, itemIds: string[], from: number): Promise<void> {
    if (itemIds.length === 0) return;
    const items = this.itemTable(kind);
    await this.db
      .insert(items)
      .values(itemIds.map((itemId, index) => ({ listId, itemId, position: from + index })))
      .onConflictDoNothing();
  }

  async removeItem(kind: ListKind, id: string, itemId: string): Promise<boolean> {
    const lists = this.database.tables.readingLists;
    const items = this.itemTable(kind);
    return this.database.transaction(async () => {
      const removed = await this.db.delete(items).where(and(eq(items.listId, id), eq(items.itemId, itemId))).returning({ itemId: items.itemId });
      if (removed.length > 0) await this.db.update(lists).set({ updatedAt: new Date() }).where(eq(lists.id, id));
      return removed.length > 0;
    });
  }

  async delete(id: string): Promise<boolean> {
    const lists = this.database.tables.readingLists;
    return this.database.transaction(async () => (await this.db.delete(lists).where(eq(lists.id, id)).returning({ id: lists.id })).length > 0);
  }

  /**
   * The list's items in its order: by position for an ordered list, else (a collection) by
   * series name. `seriesVisible` given: only the items that viewer may see; undefined with
   * `all`: every stored item, hidden ones included (for rewriting the order).
   */
  async itemIds(kind: ListKind, id: string, visibility: { seriesVisible: SQL | undefined } | "all"): Promise<string[]> {
    const { readingLists: lists, series } = this.database.tables;
    const items = this.itemTable(kind);
    const [list] = await this.db.select({ ordered: lists.ordered }).from(lists).where(eq(lists.id, id));
    if (!list) return [];
    const visible = visibility === "all" ? undefined : this.visibleItem(kind, visibility.seriesVisible);
    const byName = kind === "collection" && !list.ordered;
    const query = this.db.select({ itemId: items.itemId }).from(items).$dynamic();
    if (byName) query.innerJoin(series, eq(series.id, items.itemId));
    const rows = await query
      .where(and(eq(items.listId, id), visible))
      .orderBy(...(byName ? [asc(bytewise(this.database, series.nameSort)), asc(items.itemId)] : [asc(items.position), asc(items.itemId)]));
    return rows.map((row) => row.itemId);
  }

  /** Those of `ids` the viewer may put in a list of this kind (present, visible). */
  async visibleItems(kind: ListKind, ids: string[], seriesVisible: SQL | undefined): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { series, books } = this.database.tables;
    const rows =
      kind === "collection"
        ? await this.db
            .select({ id: series.id })
            .from(series)
            .where(and(inArray(series.id, ids), sql`${series.presentBookCount} > 0`, seriesVisible))
        : await this.db
            .select({ id: books.id })
            .from(books)
            .innerJoin(series, eq(series.id, books.seriesId))
            .where(and(inArray(books.id, ids), eq(books.deleted, false), seriesVisible));
    return new Set(rows.map((row) => row.id));
  }

  /**
   * The present books of the visible series named one of `names` (ignoring case), with what
   * matching a list file's entry needs: the series' name and year, the book's number.
   */
  async booksOfSeriesNamed(names: string[], seriesVisible: SQL | undefined): Promise<{ bookId: string; seriesName: string; seriesYear: number | null; numberSort: number | null }[]> {
    if (names.length === 0) return [];
    const { series, books } = this.database.tables;
    return this.db
      .select({ bookId: books.id, seriesName: series.name, seriesYear: series.year, numberSort: books.numberSort })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(and(inArray(sql`lower(${series.name})`, [...new Set(names)].map((name) => sql`lower(${name})`)), eq(books.deleted, false), seriesVisible))
      .orderBy(asc(books.id));
  }

  async addWantToRead(userId: string, seriesId: string): Promise<void> {
    await this.database.transaction(async () => {
      await this.db.insert(this.database.tables.wantToRead).values({ userId, seriesId, addedAt: new Date() }).onConflictDoNothing();
    });
  }

  async removeWantToRead(userId: string, seriesId: string): Promise<boolean> {
    const w = this.database.tables.wantToRead;
    return this.database.transaction(
      async () => (await this.db.delete(w).where(and(eq(w.userId, userId), eq(w.seriesId, seriesId))).returning({ seriesId: w.seriesId })).length > 0,
    );
  }

  /** The series the user wants to read (visible or not: the series query filters them). */
  async wantToReadIds(userId: string): Promise<string[]> {
    const w = this.database.tables.wantToRead;
    const rows = await this.db.select({ seriesId: w.seriesId }).from(w).where(eq(w.userId, userId));
    return rows.map((row) => row.seriesId);
  }
}
