import { type SQL, and, asc, count, eq, exists, sql } from "drizzle-orm";
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
    await this.db.update(t).set({ rootMountPoint }).where(eq(t.id, id));
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

  /** Series and present books of the library, counting only series that pass `seriesVisible`. */
  async counts(id: string, seriesVisible?: SQL): Promise<LibraryCounts> {
    const { series, books } = this.database.tables;
    // Series whose books are all soft-deleted are hidden from the series list: not counted either.
    const withPresentBooks = exists(
      this.db.select({ one: sql`1` }).from(books).where(and(eq(books.seriesId, series.id), eq(books.deleted, false))),
    );
    const [seriesRow] = await this.db
      .select({ n: count() })
      .from(series)
      .where(and(eq(series.libraryId, id), withPresentBooks, seriesVisible));
    // Every book has its series (foreign key): the join is needed only to test visibility.
    const bookCount = this.db.select({ n: count() }).from(books).$dynamic();
    if (seriesVisible) bookCount.innerJoin(series, eq(series.id, books.seriesId));
    const [bookRow] = await bookCount.where(and(eq(books.libraryId, id), eq(books.deleted, false), seriesVisible));
    return { seriesCount: seriesRow?.n ?? 0, bookCount: bookRow?.n ?? 0 };
  }
}
