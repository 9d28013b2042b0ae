/**
 * Reads and writes of a series' settlement (src/library/series-settlement.ts): the series'
 * present books with what decides its fields and order, and the settled fields and book
 * positions written back, never over a field an admin locked.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "../database";
import { refreshOrderKeys, sortName } from "./catalogue";
import type { ReadingDirection, SeriesStrategy } from "./libraries";
import { lockingRead } from "./row-lock";
import type { StoredBookMetadata } from "../schema/types";

/** The series fields a settlement decides. */
export interface SettledSeriesFields {
  name: string;
  summary: string | null;
  publisher: string | null;
  year: number | null;
  readingDirection: ReadingDirection | null;
}

export interface SettlementSeries extends SettledSeriesFields {
  id: string;
  libraryId: string;
  strategy: SeriesStrategy;
  folderPath: string | null;
}

export interface SettlementBook {
  id: string;
  numberSort: number | null;
  title: string;
  titleSort: string | null;
  filePath: string;
  seriesPosition: number | null;
  year: number | null;
  summary: string | null;
  metadata: StoredBookMetadata;
}

export interface SeriesRename {
  seriesId: string;
  from: string;
  to: string;
}

const SETTLED_FIELDS: readonly (keyof SettledSeriesFields)[] = ["name", "summary", "publisher", "year", "readingDirection"];

export class SeriesSettlementRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  /** The series and its present books, or undefined when the series is gone. */
  async read(seriesId: string): Promise<{ series: SettlementSeries; books: SettlementBook[] } | undefined> {
    const { series: s, books: b, libraries: l } = this.database.tables;
    const [series] = await this.db
      .select({
        id: s.id,
        libraryId: s.libraryId,
        strategy: l.seriesStrategy,
        folderPath: s.folderPath,
        name: s.name,
        summary: s.summary,
        publisher: s.publisher,
        year: s.year,
        readingDirection: s.readingDirection,
      })
      .from(s)
      .innerJoin(l, eq(l.id, s.libraryId))
      .where(eq(s.id, seriesId));
    if (!series) return undefined;
    const books = await this.db
      .select({
        id: b.id,
        numberSort: b.numberSort,
        title: b.title,
        titleSort: b.titleSort,
        filePath: b.filePath,
        seriesPosition: b.seriesPosition,
        year: b.year,
        summary: b.summary,
        metadata: b.metadata,
      })
      .from(b)
      .where(and(eq(b.seriesId, seriesId), eq(b.deleted, false)));
    return { series, books };
  }

  /**
   * Writes the settled fields (those not locked by an admin; null `fields`: none) and the
   * books' new positions, in one transaction. Returns the rename when the name changed.
   */
  async write(seriesId: string, fields: SettledSeriesFields | null, positions: ReadonlyMap<string, number>): Promise<SeriesRename | null> {
    const { series: s, books: b } = this.database.tables;
    return this.database.transaction(async () => {
      let rename: SeriesRename | null = null;
      if (fields) {
        const [current] = await lockingRead(
          this.database,
          this.db
            .select({ name: s.name, summary: s.summary, publisher: s.publisher, year: s.year, readingDirection: s.readingDirection, lockedFields: s.lockedFields })
            .from(s)
            .where(eq(s.id, seriesId)),
        );
        if (!current) return null;
        const locked = new Set(current.lockedFields);
        const changes: Partial<typeof s.$inferInsert> = {};
        for (const field of SETTLED_FIELDS) {
          if (!locked.has(field) && current[field] !== fields[field]) Object.assign(changes, { [field]: fields[field] });
        }
        if (changes.name !== undefined) {
          rename = { seriesId, from: current.name, to: changes.name };
          if (!locked.has("nameSort")) changes.nameSort = sortName(changes.name);
        }
        if (Object.keys(changes).length > 0) await this.db.update(s).set({ ...changes, updatedAt: new Date() }).where(eq(s.id, seriesId));
        // The books' default order starts with their series' sort name.
        if (changes.nameSort !== undefined) await refreshOrderKeys(this.database, eq(b.seriesId, seriesId));
      }
      // One statement per 500 books (a fresh scan places every book once): a CASE over the ids.
      const changed = [...positions];
      for (let start = 0; start < changed.length; start += 500) {
        const chunk = changed.slice(start, start + 500);
        // Positions are integers computed here, written as literals (typed for PostgreSQL's CASE).
        const cases = sql.join(chunk.map(([bookId, position]) => sql`when ${b.id} = ${bookId} then ${sql.raw(String(Math.trunc(position)))}`), sql` `);
        await this.db
          .update(b)
          .set({ seriesPosition: sql`case ${cases} end` })
          .where(and(eq(b.seriesId, seriesId), inArray(b.id, chunk.map(([bookId]) => bookId))));
      }
      return rename;
    });
  }

  /** Every series of the library. */
  async seriesOf(libraryId: string): Promise<string[]> {
    const s = this.database.tables.series;
    return (await this.db.select({ id: s.id }).from(s).where(eq(s.libraryId, libraryId))).map((row) => row.id);
  }

  /** Series of the library holding a present book without a position (catalogued before positions existed). */
  async seriesWithUnplacedBooks(libraryId: string): Promise<string[]> {
    const b = this.database.tables.books;
    const rows = await this.db
      .selectDistinct({ id: b.seriesId })
      .from(b)
      .where(and(eq(b.libraryId, libraryId), eq(b.deleted, false), isNull(b.seriesPosition)));
    return rows.map((row) => row.id);
  }

  /** The series of these books (to settle after the books changed). */
  async seriesOfBooks(bookIds: string[]): Promise<string[]> {
    if (bookIds.length === 0) return [];
    const b = this.database.tables.books;
    const rows = await this.db.selectDistinct({ id: b.seriesId }).from(b).where(inArray(b.id, bookIds));
    return rows.map((row) => row.id);
  }
}

