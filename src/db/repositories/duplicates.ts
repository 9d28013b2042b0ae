/**
 * Duplicate detection results: groups of present books sharing a file hash (anywhere), or the
 * same series name and number in different libraries. Detection replaces the stored groups.
 */
import { and, asc, eq, gt, isNotNull, sql, inArray } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";

export interface DuplicateGroupRecord {
  id: string;
  kind: "hash" | "metadata";
  key: string;
  bookIds: string[];
}

export class DuplicateRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async detect(): Promise<{ hashGroups: number; metadataGroups: number }> {
    const { books, series, duplicateGroups } = this.database.tables;
    return this.database.transaction(async () => {
      await this.db.delete(duplicateGroups);
      const present = eq(books.deleted, false);

      const hashes = await this.db
        .select({ key: books.fileHash })
        .from(books)
        .where(present)
        .groupBy(books.fileHash)
        .having(gt(sql<number>`count(*)`, 1));
      const metadataKey = sql<string>`lower(${series.name}) || '#' || cast(${books.numberSort} as text)`;
      const metadata = await this.db
        .select({ key: metadataKey })
        .from(books)
        .innerJoin(series, eq(series.id, books.seriesId))
        .where(and(present, isNotNull(books.numberSort)))
        .groupBy(metadataKey)
        .having(gt(sql<number>`count(distinct ${books.libraryId})`, 1));

      for (const { key } of hashes) {
        const members = await this.db.select({ id: books.id }).from(books).where(and(present, eq(books.fileHash, key)));
        await this.store("hash", key, members.map((member) => member.id));
      }
      for (const { key } of metadata) {
        const members = await this.db
          .select({ id: books.id })
          .from(books)
          .innerJoin(series, eq(series.id, books.seriesId))
          .where(and(present, eq(metadataKey, key)));
        await this.store("metadata", key, members.map((member) => member.id));
      }
      return { hashGroups: hashes.length, metadataGroups: metadata.length };
    });
  }

  async groups(): Promise<DuplicateGroupRecord[]> {
    const { duplicateGroups, duplicateGroupBooks } = this.database.tables;
    const groups = await this.db.select().from(duplicateGroups).orderBy(asc(duplicateGroups.kind), asc(duplicateGroups.key));
    if (groups.length === 0) return [];
    const members = await this.db
      .select()
      .from(duplicateGroupBooks)
      .where(inArray(duplicateGroupBooks.groupId, groups.map((group) => group.id)));
    return groups.map((group) => ({
      id: group.id,
      kind: group.kind,
      key: group.key,
      bookIds: members.filter((member) => member.groupId === group.id).map((member) => member.bookId),
    }));
  }

  private async store(kind: "hash" | "metadata", key: string, bookIds: string[]): Promise<void> {
    const { duplicateGroups, duplicateGroupBooks } = this.database.tables;
    const id = newId();
    await this.db.insert(duplicateGroups).values({ id, kind, key, createdAt: new Date() });
    await this.db.insert(duplicateGroupBooks).values(bookIds.map((bookId) => ({ groupId: id, bookId })));
  }
}
