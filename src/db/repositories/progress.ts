/**
 * Reading progress: one row per user and book, keyed by the book's id, which the scanner keeps
 * through moves, soft-deletion and restoration, so progress survives all three. Every write
 * replaces the whole position with the server's time: the last writer wins, whichever client
 * (REST, web reader, OPDS page streaming, KOReader) it was.
 */
import { and, eq, inArray, sql } from "drizzle-orm";

import type { Database } from "../database";
import type { ReadiumLocator } from "../schema/types";

/** Where a user is in a book; the optional parts are null when the writer did not give them. */
export interface ProgressPosition {
  page: number;
  completed: boolean;
  progression: number | null;
  locator: ReadiumLocator | null;
  xpointer: string | null;
  device: string | null;
  deviceId: string | null;
}

export interface ProgressRecord extends ProgressPosition {
  updatedAt: Date;
}

/** The columns of a progress record, also for the queries that join progress onto books. */
export function progressColumns(database: Database) {
  const p = database.tables.readProgress;
  return {
    page: p.page,
    completed: p.completed,
    progression: p.progression,
    locator: p.locator,
    xpointer: p.xpointer,
    device: p.device,
    deviceId: p.deviceId,
    updatedAt: p.updatedAt,
  };
}

/** Books written per statement by markMany (ten parameters a row stay well under SQLite's limit). */
const WRITE_SLICE = 500;

export class ProgressRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async find(userId: string, bookId: string): Promise<ProgressRecord | undefined> {
    const p = this.database.tables.readProgress;
    const [row] = await this.db
      .select(progressColumns(this.database))
      .from(p)
      .where(and(eq(p.userId, userId), eq(p.bookId, bookId)));
    return row;
  }

  async save(userId: string, bookId: string, position: ProgressPosition): Promise<ProgressRecord> {
    const p = this.database.tables.readProgress;
    const record = { ...position, updatedAt: new Date() };
    await this.database.transaction(async () => {
      await this.db
        .insert(p)
        .values({ userId, bookId, ...record })
        .onConflictDoUpdate({ target: [p.userId, p.bookId], set: record });
    });
    return record;
  }

  /**
   * Marks books read (completed on their last page: `lastPages` maps each book to its page
   * count) or unread (no progress at all), all of them or none: one transaction.
   */
  async markMany(userId: string, lastPages: Map<string, number>, read: boolean): Promise<void> {
    const p = this.database.tables.readProgress;
    const bookIds = [...lastPages.keys()];
    await this.database.transaction(async () => {
      // In slices: SQLite takes a bounded number of parameters per statement.
      for (let start = 0; start < bookIds.length; start += WRITE_SLICE) {
        const slice = bookIds.slice(start, start + WRITE_SLICE);
        if (!read) {
          await this.db.delete(p).where(and(eq(p.userId, userId), inArray(p.bookId, slice)));
          continue;
        }
        const updatedAt = new Date();
        const position = { completed: true, progression: null, locator: null, xpointer: null, device: null, deviceId: null, updatedAt };
        await this.db
          .insert(p)
          .values(slice.map((bookId) => ({ userId, bookId, page: lastPages.get(bookId)!, ...position })))
          .onConflictDoUpdate({ target: [p.userId, p.bookId], set: { ...position, page: sql`excluded.page` } });
      }
    });
  }

  async delete(userId: string, bookId: string): Promise<void> {
    const p = this.database.tables.readProgress;
    await this.database.transaction(async () => {
      await this.db.delete(p).where(and(eq(p.userId, userId), eq(p.bookId, bookId)));
    });
  }
}
