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
import type { Author } from "../../formats/contract";
import { replaceSeriesValues } from "./series-metadata-values";

/** The series fields a settlement decides. */
export interface SettledSeriesFields {
  name: string;
  summary: string | null;
  publisher: string | null;
  year: number | null;
  readingDirection: ReadingDirection | null;
  genres: string[];
  tags: string[];
  authors: Author[];
  ageRating: number | null;
  language: string | null;
}

export interface SettlementSeries extends SettledSeriesFields {
  id: string;
  libraryId: string;
  strategy: SeriesStrategy;
  folderPath: string | null;
  /** Fields an admin locked: never written. */
  lockedFields: string[];
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
  libraryId: string;
  from: string;
  to: string;
}

/** From a series and its present books: the fields they settle (null: none) and the positions that changed. */
export type SettlementDecision = (
  series: SettlementSeries,
  books: readonly SettlementBook[],
) => { fields: SettledSeriesFields | null; positions: ReadonlyMap<string, number> };

interface SettlementState {
  series: SettlementSeries;
  books: SettlementBook[];
}

const SETTLED_FIELDS: readonly (keyof SettledSeriesFields)[] = ["name", "summary", "publisher", "year", "readingDirection", "genres", "tags", "authors", "ageRating", "language"];

/** Equal values (the lists compared item by item, in order). */
const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** What `decide` changes of the series: the settled fields not locked that differ, the positions. */
function changesOf({ series, books }: SettlementState, decide: SettlementDecision) {
  const { fields, positions } = decide(series, books);
  const changes: Partial<SettledSeriesFields> = {};
  for (const field of SETTLED_FIELDS) {
    if (fields && !series.lockedFields.includes(field) && !same(series[field], fields[field])) Object.assign(changes, { [field]: fields[field] });
  }
  return { fields: changes, positions, none: Object.keys(changes).length === 0 && positions.size === 0 };
}

export class SeriesSettlementRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  /**
   * Settles the series: `decide` gives, from the series and its present books, the fields
   * (null: none) and the books' positions that changed; the fields not locked that differ and
   * those positions are written. The series is read first outside any transaction, and when
   * nothing would change (every series on a rescan of an unchanged library) nothing is written
   * and no transaction taken; otherwise it is read again and written in one transaction, its row
   * locked on PostgreSQL, so that a change committed meanwhile is decided on, not overwritten.
   * A series gone or without present books is left alone. Returns the rename when the name changed.
   */
  async settle(seriesId: string, decide: SettlementDecision): Promise<SeriesRename | null> {
    const before = await this.read(seriesId);
    if (!before || changesOf(before, decide).none) return null;
    return this.database.transaction(async () => {
      const s = this.database.tables.series;
      await lockingRead(this.database, this.db.select({ id: s.id }).from(s).where(eq(s.id, seriesId)));
      const found = await this.read(seriesId);
      if (!found) return null;
      const { fields, positions } = changesOf(found, decide);
      return this.write(found.series, fields, positions);
    });
  }

  /** The series and its present books, or undefined when the series is gone or has none. */
  private async read(seriesId: string): Promise<SettlementState | undefined> {
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
        genres: s.genres,
        tags: s.tags,
        authors: s.authors,
        ageRating: s.ageRating,
        language: s.language,
        lockedFields: s.lockedFields,
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
    return books.length > 0 ? { series, books } : undefined;
  }

  /** Writes the changed fields (see changesOf) and the books' new positions. */
  private async write(series: SettlementSeries, fields: Partial<SettledSeriesFields>, positions: ReadonlyMap<string, number>): Promise<SeriesRename | null> {
    const { series: s, books: b } = this.database.tables;
    let rename: SeriesRename | null = null;
    const changes: Partial<typeof s.$inferInsert> = { ...fields };
    if (fields.name !== undefined) {
      rename = { seriesId: series.id, libraryId: series.libraryId, from: series.name, to: fields.name };
      if (!series.lockedFields.includes("nameSort")) changes.nameSort = sortName(fields.name);
    }
    if (Object.keys(changes).length > 0) await this.db.update(s).set({ ...changes, updatedAt: new Date() }).where(eq(s.id, series.id));
    await replaceSeriesValues(this.database, series.id, { genres: fields.genres, tags: fields.tags, authors: fields.authors });
    // The books' default order starts with their series' sort name.
    if (changes.nameSort !== undefined) await refreshOrderKeys(this.database, eq(b.seriesId, series.id));
    // One statement per 500 books (a fresh scan places every book once): a CASE over the ids.
    const changed = [...positions];
    for (let start = 0; start < changed.length; start += 500) {
      const chunk = changed.slice(start, start + 500);
      // Positions are integers computed here, written as literals (typed for PostgreSQL's CASE).
      const cases = sql.join(chunk.map(([bookId, position]) => sql`when ${b.id} = ${bookId} then ${sql.raw(String(Math.trunc(position)))}`), sql` `);
      await this.db
        .update(b)
        .set({ seriesPosition: sql`case ${cases} end` })
        .where(and(eq(b.seriesId, series.id), inArray(b.id, chunk.map(([bookId]) => bookId))));
    }
    return rename;
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

