/**
 * What admins change by hand: series and book fields, and uploaded covers. Every edited field
 * joins the record's `lockedFields`, which scans never overwrite (see CatalogueRepository).
 */
import { eq, isNotNull } from "drizzle-orm";
import type { Database } from "../database";
import { bookSearchText, refreshOrderKeys } from "./catalogue";
import { lockingRead } from "./row-lock";
import type { ReadingDirection } from "./libraries";
import { replaceSeriesValues } from "./series-metadata-values";
import type { SeriesLink, SeriesStatus } from "../schema/types";
import type { Author } from "../../formats/contract";

export interface SeriesEdit {
  name?: string;
  nameSort?: string;
  summary?: string | null;
  publisher?: string | null;
  year?: number | null;
  readingDirection?: ReadingDirection | null;
  genres?: string[];
  tags?: string[];
  authors?: Author[];
  ageRating?: number | null;
  language?: string | null;
  status?: SeriesStatus | null;
  links?: SeriesLink[];
}

export interface BookEdit {
  title?: string;
  titleSort?: string | null;
  number?: number | null;
  numberSort?: number | null;
  volume?: number | null;
  summary?: string | null;
  year?: number | null;
  genres?: string[];
  tags?: string[];
  authors?: Author[];
}

export type CoverOwner = "book" | "series";

export class MetadataEditRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  /** Applies the edit and locks its fields; false when the series does not exist. */
  async editSeries(id: string, edit: SeriesEdit): Promise<boolean> {
    const s = this.database.tables.series;
    return this.database.transaction(async () => {
      const [current] = await lockingRead(this.database, this.db.select({ lockedFields: s.lockedFields }).from(s).where(eq(s.id, id)));
      if (!current) return false;
      const lockedFields = withLocks(current.lockedFields, edit);
      await this.db.update(s).set({ ...edit, lockedFields, updatedAt: new Date() }).where(eq(s.id, id));
      await replaceSeriesValues(this.database, id, { genres: edit.genres, tags: edit.tags, authors: edit.authors });
      if (edit.name !== undefined || edit.nameSort !== undefined) {
        await refreshOrderKeys(this.database, eq(this.database.tables.books.seriesId, id));
      }
      return true;
    });
  }

  /** Applies the edit and locks its fields; false when the book does not exist. */
  async editBook(id: string, edit: BookEdit): Promise<boolean> {
    const b = this.database.tables.books;
    return this.database.transaction(async () => {
      const [current] = await lockingRead(
        this.database,
        this.db.select({ lockedFields: b.lockedFields, title: b.title, metadata: b.metadata }).from(b).where(eq(b.id, id)),
      );
      if (!current) return false;
      const lockedFields = withLocks(current.lockedFields, edit);
      const { genres, tags, authors, ...columns } = edit;
      const metadata = { ...current.metadata, ...(genres && { genres }), ...(tags && { tags }), ...(authors && { authors }) };
      const searchText = bookSearchText(edit.title ?? current.title, metadata);
      await this.db.update(b).set({ ...columns, metadata, searchText, lockedFields, updatedAt: new Date() }).where(eq(b.id, id));
      await refreshOrderKeys(this.database, eq(b.id, id));
      return true;
    });
  }

  /**
   * Takes `fields` out of the record's locked fields, so the next scan that reads its file (a
   * deep scan, a re-analysis, a changed file) writes them again; false when it does not exist.
   */
  async unlock(owner: CoverOwner, id: string, fields: readonly string[]): Promise<boolean> {
    const table = owner === "book" ? this.database.tables.books : this.database.tables.series;
    return this.database.transaction(async () => {
      const [current] = await lockingRead(this.database, this.db.select({ lockedFields: table.lockedFields }).from(table).where(eq(table.id, id)));
      if (!current) return false;
      const lockedFields = current.lockedFields.filter((field) => !fields.includes(field));
      await this.db.update(table).set({ lockedFields, updatedAt: new Date() }).where(eq(table.id, id));
      return true;
    });
  }

  /** Runs `work`, edits of several records, as one transaction: all of them happen, or none. */
  together<T>(work: () => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  /** Every uploaded cover file a book or a series still references (cleanup keeps these). */
  async coverPaths(): Promise<Set<string>> {
    const { books, series } = this.database.tables;
    const bookCovers = await this.db.select({ path: books.customCoverPath }).from(books).where(isNotNull(books.customCoverPath));
    const seriesCovers = await this.db.select({ path: series.customCoverPath }).from(series).where(isNotNull(series.customCoverPath));
    return new Set([...bookCovers, ...seriesCovers].flatMap((row) => (row.path ? [row.path] : [])));
  }

  /** Records (or clears, with null) the uploaded cover; returns the previous one's path. */
  async setCover(owner: CoverOwner, id: string, path: string | null): Promise<string | null> {
    const table = owner === "book" ? this.database.tables.books : this.database.tables.series;
    return this.database.transaction(async () => {
      const [current] = await this.db.select({ path: table.customCoverPath }).from(table).where(eq(table.id, id));
      await this.db.update(table).set({ customCoverPath: path }).where(eq(table.id, id));
      return current?.path ?? null;
    });
  }
}

function withLocks(locked: string[], edit: object): string[] {
  return [...new Set([...locked, ...Object.keys(edit)])].sort();
}
