/**
 * Collections and read lists named by books' metadata, made after a scan as Komga makes them
 * (issue 33): ComicInfo SeriesGroup puts the book's series in a shared collection of that name,
 * StoryArc (and AlternateSeries) puts the book in a shared read list of that name at its
 * StoryArcNumber (AlternateNumber). A list that exists already (same name, shared) gets the
 * series or books it lacks, after its own, in that order; nothing is removed, so an admin's
 * edits stay. Lists are shared: what each user sees inside them is cut by sharing tags.
 */
import type { ListKind, Repositories } from "../db";
import { parseBookNumber } from "./metadata/merge";

interface Member {
  itemId: string;
  /** Place in the list (the arc number), then the book's own number. */
  order: [number, number];
}

export class MetadataLists {
  constructor(private readonly repositories: Repositories) {}

  /** Brings the shared lists in line with what the library's present books say. */
  async syncLibrary(libraryId: string): Promise<void> {
    const rows = await this.repositories.books.metadataOf({ libraryId, deleted: false });
    const collections = new Map<string, Member[]>();
    const readLists = new Map<string, Member[]>();
    const add = (lists: Map<string, Member[]>, name: string, member: Member) => {
      const key = [...lists.keys()].find((existing) => existing.toLowerCase() === name.toLowerCase()) ?? name;
      lists.set(key, [...(lists.get(key) ?? []), member]);
    };
    for (const row of rows) {
      const own = row.numberSort ?? Number.MAX_VALUE;
      for (const name of row.metadata.collections ?? []) add(collections, name, { itemId: row.seriesId, order: [0, 0] });
      for (const list of row.metadata.readingLists ?? []) {
        add(readLists, list.name, { itemId: row.id, order: [parseBookNumber(list.number).numberSort ?? Number.MAX_VALUE, own] });
      }
    }
    for (const [name, members] of collections) await this.merge("collection", name, members);
    for (const [name, members] of readLists) await this.merge("readlist", name, members);
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
