/**
 * Reading progress: one row per user and book, keyed by the book's id, which the scanner keeps
 * through moves, soft-deletion and restoration, so progress survives all three.
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "../database";

export interface ProgressRecord {
  page: number;
  completed: boolean;
  updatedAt: Date;
}

export class ProgressRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async find(userId: string, bookId: string): Promise<ProgressRecord | undefined> {
    const p = this.database.tables.readProgress;
    const [row] = await this.db
      .select({ page: p.page, completed: p.completed, updatedAt: p.updatedAt })
      .from(p)
      .where(and(eq(p.userId, userId), eq(p.bookId, bookId)));
    return row;
  }

  async save(userId: string, bookId: string, progress: { page: number; completed: boolean }): Promise<ProgressRecord> {
    const p = this.database.tables.readProgress;
    const record = { ...progress, updatedAt: new Date() };
    await this.database.transaction(async () => {
      await this.db
        .insert(p)
        .values({ userId, bookId, ...record })
        .onConflictDoUpdate({ target: [p.userId, p.bookId], set: record });
    });
    return record;
  }

  async delete(userId: string, bookId: string): Promise<void> {
    const p = this.database.tables.readProgress;
    await this.database.transaction(async () => {
      await this.db.delete(p).where(and(eq(p.userId, userId), eq(p.bookId, bookId)));
    });
  }
}
