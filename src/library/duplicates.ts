/**
 * Duplicate detection across libraries: by SHA-256 of the file, and by metadata (same series
 * name and number in different libraries). Results are stored; listing filters them through the
 * caller's visibility (a group shows only books the caller may see, and needs two of them).
 */
import type { BookView, Repositories } from "../db";
import type { AccessService } from "../access/visibility";
import type { Caller } from "./books";

export interface DuplicateGroup {
  id: string;
  kind: "hash" | "metadata";
  key: string;
  books: BookView[];
}

export class DuplicateService {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
  ) {}

  /** Detects afresh; the counts are of the groups the caller can see (as `list` shows them). */
  async detect(caller: Caller): Promise<{ hashGroups: number; metadataGroups: number }> {
    await this.repositories.duplicates.detect();
    const groups = await this.list(caller);
    const count = (kind: DuplicateGroup["kind"]) => groups.filter((group) => group.kind === kind).length;
    return { hashGroups: count("hash"), metadataGroups: count("metadata") };
  }

  async list(caller: Caller): Promise<DuplicateGroup[]> {
    const groups = await this.repositories.duplicates.groups();
    const ids = [...new Set(groups.flatMap((group) => group.bookIds))];
    if (ids.length === 0) return [];
    const seriesVisible = await this.access.seriesVisibility(caller);
    const rows = await this.repositories.books.named({ ids, seriesVisible, deleted: false }, caller.id);
    const byId = new Map(rows.map((book) => [book.id, book]));
    return groups
      .map((group) => ({
        id: group.id,
        kind: group.kind,
        key: group.key,
        books: group.bookIds.flatMap((id) => byId.get(id) ?? []),
      }))
      .filter((group) => group.books.length > 1);
  }
}
