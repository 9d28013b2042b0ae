/**
 * What the catalogue holds, for metrics: libraries, series and books with their file sizes per
 * format. Series (and their books) hidden by `seriesVisible` are left out, like everywhere else.
 */
import { count, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "../database";

export interface FormatInventory {
  books: number;
  bytes: number;
}

export interface Inventory {
  libraries: number;
  series: number;
  /** Books whose file is present (not soft-deleted). */
  books: number;
  deletedBooks: number;
  /** Size of the present books' files. */
  totalFileBytes: number;
  /** Present books that have a thumbnail in the store (made by any process, ever). */
  booksWithThumbnail: number;
  /** Present books and their bytes per file format (cbz, cbr, epub, pdf, plugins' ids). */
  byFormat: Record<string, FormatInventory>;
}

export class InventoryRepository {
  constructor(private readonly database: Database) {}

  async inventory(seriesVisible?: SQL): Promise<Inventory> {
    const { libraries, series, books } = this.database.tables;
    const db = this.database.handle();
    const [libraryRow] = await db.select({ n: count() }).from(libraries);
    const [seriesRow] = await db.select({ n: count() }).from(series).where(seriesVisible);
    const bookRows = await db
      .select({
        format: books.fileFormat,
        deleted: books.deleted,
        books: count(),
        // count(column) counts the rows where it is not null.
        withThumbnail: count(books.thumbnailPath),
        // PostgreSQL sums a bigint as numeric, which arrives as a string.
        bytes: sql<number>`coalesce(sum(${books.fileSize}), 0)`.mapWith(Number),
      })
      .from(books)
      .innerJoin(series, eq(series.id, books.seriesId))
      .where(seriesVisible)
      .groupBy(books.fileFormat, books.deleted);

    const inventory: Inventory = {
      libraries: libraryRow?.n ?? 0,
      series: seriesRow?.n ?? 0,
      books: 0,
      deletedBooks: 0,
      totalFileBytes: 0,
      booksWithThumbnail: 0,
      byFormat: {},
    };
    for (const row of bookRows) {
      if (row.deleted) {
        inventory.deletedBooks += row.books;
        continue;
      }
      inventory.books += row.books;
      inventory.totalFileBytes += row.bytes;
      inventory.booksWithThumbnail += row.withThumbnail;
      inventory.byFormat[row.format] = { books: row.books, bytes: row.bytes };
    }
    return inventory;
  }
}
