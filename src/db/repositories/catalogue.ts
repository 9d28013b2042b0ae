/**
 * Writes of the catalogue (series, books, pages, book errors) as the scanner makes them.
 * Each book is saved with its pages and errors in one transaction, so an interrupted scan
 * never leaves half a book behind.
 */
import { basename } from "node:path";
import { and, eq, getTableColumns, inArray, isNotNull, isNull, notExists, or, sql, type Column, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database, Tables } from "../database";
import { newId } from "../ids";
import { preparedOnce } from "./prepared";
import { recordChanged, type StoredBookRecord } from "./book-record-changes";
import { lockingRead } from "./row-lock";
import type { StoredBookMetadata } from "../schema/types";
import type { ReadingDirection } from "./libraries";

/**
 * Book fields kept in its metadata JSON rather than in columns: an admin's edit writes them
 * there (MetadataEditRepository.editBook), and a scan keeps a locked one's stored value.
 */
export const BOOK_METADATA_FIELDS = ["genres", "tags", "authors"] as const satisfies readonly (keyof StoredBookMetadata)[];

/** What the scanner needs to know of a catalogued file to compare it with the disk. */
export interface BookSnapshot {
  id: string;
  seriesId: string;
  filePath: string;
  fileSize: number;
  fileModifiedAt: number;
  fileHash: string;
  deleted: boolean;
}

export interface SeriesIdentity {
  seriesKey: string;
  name: string;
  folderPath: string | null;
  readingDirection: ReadingDirection | null;
  publisher: string | null;
  year: number | null;
  summary: string | null;
}

export interface PageRecord {
  number: number;
  fileName: string;
  mediaType: string;
  width: number | null;
  height: number | null;
  size: number | null;
}

export interface BookErrorRecord {
  errorType: string;
  message: string;
  details: Record<string, unknown> | null;
  occurredAt: Date;
}

/** A row of the books table, as both databases return it. */
export type BookRow = Tables["books"]["$inferSelect"];

/** Everything a scan knows about one file, ready to be stored. */
export type BookContent = Omit<
  BookRow,
  | "id"
  | "libraryId"
  | "lockedFields"
  | "thumbnailPath"
  | "customCoverPath"
  | "deleted"
  | "deletedAt"
  | "createdAt"
  | "updatedAt"
  | "searchText"
  | "orderSeries"
  | "orderNumber"
  | "orderTitle"
  | "fileNameMd5"
  | "seriesPosition"
  | "listsPending"
>;

/**
 * KOReader's document id in its "file name" mode: the MD5 of the file's base name (extension
 * included), kept with the row, like the search text, wherever the path is written.
 */
function fileNameMd5(filePath: string): string {
  return new Bun.CryptoHasher("md5").update(basename(filePath)).digest("hex");
}

/** Where books without a number go in the default order: after every numbered one. */
const UNNUMBERED = 1e15;

/**
 * The default-order keys of a book: its series' sort name, its number (unnumbered last), its
 * lower-cased title. From the row's own columns (refreshOrderKeys) or from the values of a book
 * being inserted, so that both compute them alike (the same SQL lower()).
 */
function orderKeys(database: Database, of: { seriesId: SQLWrapper | string; numberSort: SQLWrapper | number | null; title: SQLWrapper | string }) {
  const { series } = database.tables;
  return {
    orderSeries: sql`coalesce((select ${series.nameSort} from ${series} where ${series.id} = ${of.seriesId}), '')`,
    orderNumber: typeof of.numberSort === "number" || of.numberSort === null ? (of.numberSort ?? UNNUMBERED) : sql`coalesce(${of.numberSort}, ${UNNUMBERED})`,
    orderTitle: sql`lower(cast(${of.title} as text))`,
  };
}

/**
 * Recomputes the stored default-order keys of the books matching `condition` from their own
 * columns and their series' sort name. Called wherever a title, a number, a book's series or
 * a series' name changes, in the same transaction.
 */
export async function refreshOrderKeys(database: Database, condition: SQL): Promise<void> {
  const { books } = database.tables;
  await database
    .handle()
    .update(books)
    .set(orderKeys(database, books))
    .where(condition);
}

/** What `q` searches in a book besides its series name: the title and the authors' names. */
export function bookSearchText(title: string, metadata: StoredBookMetadata): string {
  return [title, ...(metadata.authors ?? []).map((author) => author.name)].join("\n").toLowerCase();
}

/** The columns of a new book's row (all but the order keys, which orderKeys computes in SQL). */
function newBookRow(id: string, libraryId: string, content: BookContent, now: Date) {
  return {
    id,
    libraryId,
    ...content,
    fileNameMd5: fileNameMd5(content.filePath),
    searchText: bookSearchText(content.title, content.metadata),
    listsPending: listEntries(content.metadata) !== listEntries(undefined),
    lockedFields: [],
    thumbnailPath: null,
    customCoverPath: null,
    deleted: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The lists a book's metadata names (see MetadataLists), comparable as a string. */
function listEntries(metadata: StoredBookMetadata | undefined): string {
  return JSON.stringify([metadata?.collections ?? [], metadata?.readingLists ?? []]);
}

/**
 * A placeholder for each of `columns`, named after it, for a statement prepared once and run
 * with driverValues(columns, row). Inside SQL, not bare: drizzle maps a bare placeholder's value
 * through the column's encoder even when it is null (a timestamp's throws). Every column listed
 * gets the row's value, null when the row has none: leave out those that take their defaults.
 */
function columnPlaceholders<C extends Record<string, Column>>(columns: C): Record<keyof C, SQL> {
  return Object.fromEntries(Object.keys(columns).map((key) => [key, sql`${sql.placeholder(key)}`])) as Record<keyof C, SQL>;
}

/** A row's values as the driver takes them, as drizzle's insert maps each one (nulls stay null). */
function driverValues(columns: Record<string, Column>, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(columns).map(([key, column]) => [key, row[key] === null || row[key] === undefined ? null : column.mapToDriverValue(row[key])]),
  );
}

/**
 * A book's pages as one JSON array of [number, file name, media type, width, height, size]:
 * one parameter whatever the page count, so the statement's text never changes (it is prepared
 * once) and no book runs into SQLite's bound-parameter limit. Building a multi-row insert
 * through drizzle cost a fresh scan more than running it.
 */
function pageRows(pages: PageRecord[]): string {
  return JSON.stringify(pages.map((page) => [page.number, page.fileName, page.mediaType, page.width, page.height, page.size]));
}

/**
 * The SELECT that turns pageRows into book_pages rows, columns in the table's order (which
 * drizzle's insert-select lists), for the book of that id, or whose id comes from `from`.
 */
function pagesFromJson(database: Database, book: string | { id: SQL; from: SQL }, rows: string | SQLWrapper): SQL {
  const postgres = database.dialect === "postgres";
  const id = typeof book !== "string" ? book.id : postgres ? sql`cast(${book} as uuid)` : sql`${book}`;
  const from = typeof book !== "string" ? sql`${book.from}, ` : sql``;
  return postgres
    ? sql`select ${id}, (p->>0)::integer, p->>1, p->>2, (p->>3)::integer, (p->>4)::integer, (p->>5)::bigint
        from ${from}jsonb_array_elements(cast(${rows} as jsonb)) as p`
    : sql`select ${id}, value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 from ${from}json_each(${rows})`;
}

export class CatalogueRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async bookSnapshots(libraryId: string): Promise<BookSnapshot[]> {
    const b = this.database.tables.books;
    return this.db
      .select({
        id: b.id,
        seriesId: b.seriesId,
        filePath: b.filePath,
        fileSize: b.fileSize,
        fileModifiedAt: b.fileModifiedAt,
        fileHash: b.fileHash,
        deleted: b.deleted,
      })
      .from(b)
      .where(eq(b.libraryId, libraryId));
  }

  /**
   * The series with this key in the library, created when missing with `identity`'s fields
   * (provisional: SeriesSettlement decides them from all of the series' books).
   */
  async upsertSeries(libraryId: string, identity: SeriesIdentity): Promise<{ id: string; created: boolean }> {
    const s = this.database.tables.series;
    const now = new Date();
    // A scan asks once per series key, so most calls (all of a fresh scan's) create the
    // series: one statement. Doing nothing on conflict: two scan workers meeting the same new
    // series at once (PostgreSQL runs them concurrently) must not both try to create it.
    const { statement, columns } = this.insertSeriesIfNew();
    const row = {
      id: newId(),
      libraryId,
      seriesKey: identity.seriesKey,
      name: identity.name,
      nameSort: sortName(identity.name),
      folderPath: identity.folderPath,
      summary: identity.summary,
      publisher: identity.publisher,
      year: identity.year,
      readingDirection: identity.readingDirection,
      lockedFields: [],
      customCoverPath: null,
      createdAt: now,
      updatedAt: now,
    };
    const [inserted] = await this.database.autocommit(() => statement.execute(driverValues(columns, row)));
    if (inserted) return { id: inserted.id, created: true };
    const [existing] = await this.db
      .select({ id: s.id })
      .from(s)
      .where(and(eq(s.libraryId, libraryId), eq(s.seriesKey, identity.seriesKey)));
    if (!existing) throw new Error(`series "${identity.seriesKey}" vanished while it was being looked up`);
    return { id: existing.id, created: false };
  }

  /** A new series, or nothing when its library has one of that key: prepared once (columnPlaceholders). */
  private readonly insertSeriesIfNew = preparedOnce(() => {
    const s = this.database.tables.series;
    // The book counts start from their defaults; the database's triggers keep them. The
    // metadata its books settle (or an admin sets) starts empty too.
    const { presentBookCount, deletedBookCount, genres, tags, authors, ageRating, language, status, links, ...columns } = getTableColumns(s);
    const statement = this.database.root
      .insert(s)
      .values(columnPlaceholders(columns))
      .onConflictDoNothing({ target: [s.libraryId, s.seriesKey] })
      .returning({ id: s.id })
      .prepare("insert_series_if_new");
    return { statement, columns };
  });

  /**
   * Inserts a new book (id generated) or replaces an existing one's content, with its pages and
   * errors. An existing book whose record would not change is not written: `changed` false.
   */
  async saveBook(
    target: { libraryId: string; bookId?: string },
    content: BookContent,
    pages: PageRecord[],
    errors: BookErrorRecord[],
  ): Promise<{ id: string; changed: boolean }> {
    if (!target.bookId && errors.length === 0 && this.database.dialect === "postgres") {
      const id = newId();
      const { statement, columns } = this.insertNewBookWithPages();
      const values = { ...driverValues(columns, newBookRow(id, target.libraryId, content, new Date())), pages: pageRows(pages) };
      await this.database.autocommit(() => statement.execute(values));
      return { id, changed: true };
    }
    const { books, bookPages, bookErrors } = this.database.tables;
    return this.database.transaction(async () => {
      const now = new Date();
      let id = target.bookId;
      if (id) {
        const [current] = await lockingRead(this.database, this.db.select().from(books).where(eq(books.id, id)));
        if (current && !recordChanged(await this.storedRecord(current), content, pages, errors)) return { id, changed: false };
        const locked = new Set(current?.lockedFields ?? []);
        const changes: Partial<typeof books.$inferInsert> = {
          ...content,
          fileNameMd5: fileNameMd5(content.filePath),
          deleted: false,
          deletedAt: null,
          updatedAt: now,
        };
        for (const field of locked) delete (changes as Record<string, unknown>)[field];
        // Locked metadata values (an admin's genres, tags, authors) stay as stored inside the new metadata.
        for (const field of BOOK_METADATA_FIELDS) {
          if (locked.has(field) && changes.metadata && current) changes.metadata = { ...changes.metadata, [field]: current.metadata[field] };
        }
        // Left set when already pending: the lists are applied once after the scan.
        if (changes.metadata && listEntries(changes.metadata) !== listEntries(current?.metadata)) changes.listsPending = true;
        changes.searchText = bookSearchText(changes.title ?? current?.title ?? content.title, changes.metadata ?? content.metadata);
        await this.db.update(books).set(changes).where(eq(books.id, id));
        await this.db.delete(bookPages).where(eq(bookPages.bookId, id));
        await this.db.delete(bookErrors).where(eq(bookErrors.bookId, id));
        // From the stored row: locked fields kept their values.
        await refreshOrderKeys(this.database, eq(books.id, id));
      } else {
        id = newId();
        await this.db.insert(books).values({
          ...newBookRow(id, target.libraryId, content, now),
          // Computed in the insert itself: a second statement per book (refreshOrderKeys) cost
          // a fresh scan more than the insert.
          ...orderKeys(this.database, content),
        });
      }
      const bookId = id;
      if (pages.length > 0) await this.db.insert(bookPages).select(pagesFromJson(this.database, bookId, pageRows(pages)));
      if (errors.length > 0) {
        await this.db.insert(bookErrors).values(errors.map((error) => ({ id: newId(), bookId, ...error })));
      }
      return { id: bookId, changed: true };
    });
  }

  /** A stored book's row with its pages and errors, to compare with a new reading (recordChanged). */
  private async storedRecord(row: BookRow): Promise<StoredBookRecord> {
    const { bookPages: p, bookErrors: e } = this.database.tables;
    const pages = await this.db
      .select({ number: p.number, fileName: p.fileName, mediaType: p.mediaType, width: p.width, height: p.height, size: p.size })
      .from(p)
      .where(eq(p.bookId, row.id))
      .orderBy(p.number);
    const errors = await this.db.select({ errorType: e.errorType, message: e.message, details: e.details }).from(e).where(eq(e.bookId, row.id));
    return { row, pages, errors };
  }

  /**
   * A new book's row and its pages in ONE statement (PostgreSQL: the row inserted in a WITH
   * clause), atomic by itself, prepared once with placeholders: a fresh scan's commonest write
   * is then one round trip instead of six (BEGIN, two statements sent unnamed at two round trips
   * each, COMMIT), and no query is built per book (drizzle took ~0.3 ms to build a 20-page
   * insert). Placeholders are named after the book's columns, plus `pages` (pageRows).
   */
  private readonly insertNewBookWithPages = preparedOnce(() => {
    const root = this.database.root;
    const { books, bookPages } = this.database.tables;
    const { orderSeries, orderNumber, orderTitle, ...columns } = getTableColumns(books);
    const placeholders = columnPlaceholders(columns);
    const ordering = orderKeys(this.database, {
      seriesId: sql.placeholder("seriesId"),
      // Typed: in coalesce(parameter, constant) PostgreSQL would take both for text.
      numberSort: sql`cast(${sql.placeholder("numberSort")} as double precision)`,
      title: sql.placeholder("title"),
    });
    const insertBook = root
      .insert(books)
      .values({ ...placeholders, ...ordering })
      .returning({ id: books.id });
    const newBook = root.$with("new_book", { id: books.id }).as(insertBook.getSQL());
    const statement = root
      .with(newBook)
      .insert(bookPages)
      .select(pagesFromJson(this.database, { id: sql`${newBook.id}`, from: sql`${newBook}` }, sql.placeholder("pages")))
      .prepare("insert_new_book");
    return { statement, columns };
  });

  /** A file found again at a new path (same hash): keeps the book's id, metadata and progress. */
  async relocateBook(
    id: string,
    location: { seriesId: string; filePath: string; fileSize: number; fileModifiedAt: number },
  ): Promise<void> {
    const b = this.database.tables.books;
    await this.database.transaction(async () => {
      await this.db
        .update(b)
        .set({ ...location, fileNameMd5: fileNameMd5(location.filePath), deleted: false, deletedAt: null, updatedAt: new Date() })
        .where(eq(b.id, id));
      // The book may now be in another series: its place in the default order follows.
      await refreshOrderKeys(this.database, eq(b.id, id));
    });
  }

  /** Present books of the library that lack a KOReader document id (catalogued before ids existed). */
  async booksWithoutDocumentIds(libraryId: string): Promise<{ id: string; filePath: string }[]> {
    const b = this.database.tables.books;
    return this.db
      .select({ id: b.id, filePath: b.filePath })
      .from(b)
      .where(and(eq(b.libraryId, libraryId), eq(b.deleted, false), or(isNull(b.partialMd5), isNull(b.fileNameMd5))));
  }

  /**
   * Present books of the library whose metadata's lists changed since they were last applied
   * (`listsPending`), in series then number order: what MetadataLists applies after a scan.
   */
  async booksWithListsPending(libraryId: string): Promise<{ id: string; seriesId: string; numberSort: number | null; metadata: StoredBookMetadata }[]> {
    const b = this.database.tables.books;
    return this.db
      .select({ id: b.id, seriesId: b.seriesId, numberSort: b.numberSort, metadata: b.metadata })
      .from(b)
      .where(and(eq(b.libraryId, libraryId), eq(b.deleted, false), eq(b.listsPending, true)))
      .orderBy(b.seriesId, sql`${b.numberSort} is null`, b.numberSort, b.id);
  }

  /** These books' lists are applied (see booksWithListsPending). */
  async listsApplied(ids: string[]): Promise<void> {
    const b = this.database.tables.books;
    await this.database.transaction(async () => {
      for (let start = 0; start < ids.length; start += 500) {
        await this.db.update(b).set({ listsPending: false }).where(inArray(b.id, ids.slice(start, start + 500)));
      }
    });
  }

  async setDocumentIds(id: string, partialMd5: string, filePath: string): Promise<void> {
    const b = this.database.tables.books;
    await this.database.transaction(async () => {
      await this.db.update(b).set({ partialMd5, fileNameMd5: fileNameMd5(filePath) }).where(eq(b.id, id));
    });
  }

  async softDelete(ids: string[]): Promise<void> {
    const b = this.database.tables.books;
    const now = new Date();
    await this.database.transaction(async () => {
      for (let start = 0; start < ids.length; start += 500) {
        await this.db
          .update(b)
          // A deleted book has no place in its series' order (SeriesSettlement places the rest).
          .set({ deleted: true, deletedAt: now, updatedAt: now, seriesPosition: null })
          .where(inArray(b.id, ids.slice(start, start + 500)));
      }
    });
  }

  /** Permanently removes soft-deleted books of a library (their media files are not touched). */
  async purgeDeleted(libraryId: string): Promise<number> {
    const b = this.database.tables.books;
    return this.database.transaction(async () => {
      const removed = await this.db
        .delete(b)
        .where(and(eq(b.libraryId, libraryId), eq(b.deleted, true)))
        .returning({ id: b.id });
      await this.removeEmptySeries(libraryId);
      return removed.length;
    });
  }

  /** Permanently removes one soft-deleted book; false when it does not exist or is not soft-deleted. */
  async purgeBook(id: string): Promise<boolean> {
    const b = this.database.tables.books;
    return this.database.transaction(async () => {
      const removed = await this.db
        .delete(b)
        .where(and(eq(b.id, id), eq(b.deleted, true)))
        .returning({ libraryId: b.libraryId });
      if (removed[0]) await this.removeEmptySeries(removed[0].libraryId);
      return removed.length > 0;
    });
  }

  /**
   * Series left with no book at all (not even soft-deleted ones) disappear. Read from the
   * series' book counts, which the database keeps on every change of books (migration 0012).
   */
  async removeEmptySeries(libraryId: string): Promise<void> {
    const { series } = this.database.tables;
    await this.database.transaction(async () => {
      await this.db
        .delete(series)
        .where(and(eq(series.libraryId, libraryId), eq(series.presentBookCount, 0), eq(series.deletedBookCount, 0)));
    });
  }

  /** Where a book's file is and how to read it (page serving, thumbnails). */
  async bookFile(
    id: string,
  ): Promise<{ filePath: string; fileFormat: string; coverPage: number | null; pageCount: number; libraryPath: string } | undefined> {
    const { books: b, libraries } = this.database.tables;
    const [row] = await this.db
      .select({ filePath: b.filePath, fileFormat: b.fileFormat, coverPage: b.coverPage, pageCount: b.pageCount, libraryPath: libraries.path })
      .from(b)
      .innerJoin(libraries, eq(libraries.id, b.libraryId))
      .where(eq(b.id, id));
    return row;
  }

  async addBookError(bookId: string, error: BookErrorRecord): Promise<void> {
    await this.database.transaction(async () => {
      await this.db.insert(this.database.tables.bookErrors).values({ id: newId(), bookId, ...error });
    });
  }

  /** After a scan changed the catalogue: fresh statistics, so list queries keep their indexes. */
  async optimize(): Promise<void> {
    await this.database.optimize();
  }

  /** Every thumbnail file the catalogue references (thumbnail cleanup keeps these). */
  async thumbnailPaths(): Promise<Set<string>> {
    const b = this.database.tables.books;
    const rows = await this.db.select({ path: b.thumbnailPath }).from(b).where(isNotNull(b.thumbnailPath));
    return new Set(rows.map((row) => row.path).filter((path): path is string => path !== null));
  }

  /** A thumbnail made also ends the book's earlier thumbnail errors (a full disk that passed). */
  async setThumbnail(bookId: string, thumbnailPath: string | null): Promise<void> {
    const { books: b, bookErrors } = this.database.tables;
    const thumbnailErrors = and(eq(bookErrors.bookId, bookId), eq(bookErrors.errorType, "thumbnail"));
    if (thumbnailPath !== null) {
      // Nearly every book has no thumbnail error: one statement (one round trip to PostgreSQL
      // instead of four with the transaction) stores the path when there is nothing to clear.
      const stored = await this.db
        .update(b)
        .set({ thumbnailPath })
        .where(and(eq(b.id, bookId), notExists(this.db.select({ one: sql`1` }).from(bookErrors).where(thumbnailErrors))))
        .returning({ id: b.id });
      if (stored.length > 0) return;
    }
    await this.database.transaction(async () => {
      await this.db.update(b).set({ thumbnailPath }).where(eq(b.id, bookId));
      if (thumbnailPath !== null) await this.db.delete(bookErrors).where(thumbnailErrors);
    });
  }
}

/** Sort key: case-folded, leading articles kept (users of Komga expect plain alphabetical). */
export function sortName(name: string): string {
  return name.normalize("NFKC").toLowerCase();
}
