import { type SQL, and, asc, count, eq, sql } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";
import type { LibraryScanningConfig } from "../schema/types";

export type ReadingDirection = "ltr" | "rtl" | "ttb" | "webtoon";
export type SeriesStrategy = "series_volume" | "flat" | "publisher_hierarchy" | "calibre";

export interface LibraryRecord {
  id: string;
  name: string;
  path: string;
  defaultReadingDirection: ReadingDirection;
  seriesStrategy: SeriesStrategy;
  scanningConfig: LibraryScanningConfig;
  /** The folder was a mount point at the last completed scan. */
  rootMountPoint: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type NewLibrary = Omit<LibraryRecord, "id" | "rootMountPoint" | "createdAt" | "updatedAt">;

export interface LibraryCounts {
  seriesCount: number;
  bookCount: number;
}

export class LibraryRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async list(): Promise<LibraryRecord[]> {
    const t = this.database.tables.libraries;
    return this.db.select().from(t).orderBy(asc(t.name));
  }

  async findById(id: string): Promise<LibraryRecord | undefined> {
    const t = this.database.tables.libraries;
    const [row] = await this.db.select().from(t).where(eq(t.id, id));
    return row;
  }

  async create(library: NewLibrary): Promise<LibraryRecord> {
    const now = new Date();
    const record: LibraryRecord = { id: newId(), ...library, rootMountPoint: false, createdAt: now, updatedAt: now };
    await this.database.transaction(async () => {
      await this.db.insert(this.database.tables.libraries).values(record);
    });
    return record;
  }

  /** What a completed scan found: whether the folder is a mount point now. */
  async recordMountPoint(id: string, rootMountPoint: boolean): Promise<void> {
    const t = this.database.tables.libraries;
    // In a transaction like every write, so that the request caches (recent-reads.ts) see it.
    await this.database.transaction(async () => {
      await this.db.update(t).set({ rootMountPoint }).where(eq(t.id, id));
    });
  }

  async update(id: string, changes: Partial<NewLibrary>): Promise<LibraryRecord | undefined> {
    const t = this.database.tables.libraries;
    return this.database.transaction(async () => {
      const [row] = await this.db.update(t).set({ ...changes, updatedAt: new Date() }).where(eq(t.id, id)).returning();
      return row;
    });
  }

  /** Removes the library and, by cascade, its series, books, pages, errors, progress and scans. */
  async delete(id: string): Promise<boolean> {
    const t = this.database.tables.libraries;
    return this.database.transaction(async () => {
      const removed = await this.db.delete(t).where(eq(t.id, id)).returning({ id: t.id });
      return removed.length > 0;
    });
  }

  /**
   * Series and present books of the library, counting only series that pass `seriesVisible`:
   * one pass over the library's series and the book counts they keep (migration 0012). Series
   * whose books are all soft-deleted are hidden from the series list: not counted either.
   */
  async counts(id: string, seriesVisible?: SQL): Promise<LibraryCounts> {
    const { series } = this.database.tables;
    const [row] = await this.db
      .select({ seriesCount: count(), bookCount: sql<number>`coalesce(sum(${series.presentBookCount}), 0)`.mapWith(Number) })
      .from(series)
      .where(and(eq(series.libraryId, id), sql`${series.presentBookCount} > 0`, seriesVisible));
    return { seriesCount: row?.seriesCount ?? 0, bookCount: row?.bookCount ?? 0 };
  }
}
