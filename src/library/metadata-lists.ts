/**
 * Collections and read lists named by books' metadata, made after a scan as Komga makes them
 * (issue 33): ComicInfo SeriesGroup puts the book's series in a shared collection of that name,
 * StoryArc (and AlternateSeries) puts the book in a shared read list of that name at its
 * StoryArcNumber (AlternateNumber). Lists are shared: what each user sees inside them is cut by
 * sharing tags.
 *
 * Komga's rule: lists are created and added to from a book's metadata when that metadata is
 * read anew, never resynced from the whole library. Only the books whose named lists changed
 * since they were last applied (a new book, a file whose SeriesGroup/StoryArc/AlternateSeries
 * changed: `books.lists_pending`, set by the scan) are applied: each is added to the shared
 * list of that name (created when none) unless it is there already, after the list's own items.
 * So an admin's edits of a list hold (a removed item is not put back unless its file's lists
 * change again; a reordered list keeps its order; a renamed list is no longer found by the old
 * name, so a later book naming it makes a new list). Work is linear in the changed books.
 */
import type { ListKind, Repositories } from "../db";
import { parseBookNumber } from "./metadata/merge";

interface Member {
  itemId: string;
  /** Place in the list (the arc number), then the book's own number. */
  order: [number, number];
}

/** The members each list name gains, keyed by the name ignoring case (the first spelling names a new list). */
type Gains = Map<string, { name: string; members: Member[] }>;

export class MetadataLists {
  constructor(private readonly repositories: Repositories) {}

  /** Applies the lists named by the library's books whose lists changed since last applied. */
  async syncLibrary(libraryId: string): Promise<void> {
    const rows = await this.repositories.catalogue.booksWithListsPending(libraryId);
    if (rows.length === 0) return;
    const collections: Gains = new Map();
    const readLists: Gains = new Map();
    const add = (lists: Gains, name: string, member: Member) => {
      const key = name.toLowerCase();
      const list = lists.get(key);
      if (list) list.members.push(member);
      else lists.set(key, { name, members: [member] });
    };
    for (const row of rows) {
      const own = row.numberSort ?? Number.MAX_VALUE;
      for (const name of row.metadata.collections ?? []) add(collections, name, { itemId: row.seriesId, order: [0, 0] });
      for (const list of row.metadata.readingLists ?? []) {
        add(readLists, list.name, { itemId: row.id, order: [parseBookNumber(list.number).numberSort ?? Number.MAX_VALUE, own] });
      }
    }
    for (const { name, members } of collections.values()) await this.merge("collection", name, members);
    for (const { name, members } of readLists.values()) await this.merge("readlist", name, members);
    await this.repositories.catalogue.listsApplied(rows.map((row) => row.id));
  }

  private async merge(kind: ListKind, name: string, members: Member[]): Promise<void> {
    const ordered = [...members].sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
    const itemIds = [...new Set(ordered.map((member) => member.itemId))];
    const lists = this.repositories.readingLists;
    // Found, created here, or (when another process created it a moment ago) found on a second look.
    const existing =
      (await lists.named(kind, null, name)) ??
      (await lists.create({ kind, name, summary: null, ordered: kind === "readlist", ownerId: null }, itemIds)) ??
      (await lists.named(kind, null, name));
    if (!existing) return;
    const stored = new Set(await lists.itemIds(kind, existing, "all"));
    const missing = itemIds.filter((itemId) => !stored.has(itemId));
    if (missing.length > 0) await lists.append(kind, existing, missing);
  }
}
