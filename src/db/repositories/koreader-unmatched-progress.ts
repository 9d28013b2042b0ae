/**
 * KOReader positions in documents that name no book the user may see (the
 * koreader_unmatched_progress table): one per user and document id, the last push wins.
 */
import { and, asc, count, eq, inArray } from "drizzle-orm";
import type { Database } from "../database";

export interface UnmatchedKoreaderPosition {
  percentage: number;
  progress: string;
  device: string;
  deviceId: string;
}

export interface UnmatchedKoreaderRecord extends UnmatchedKoreaderPosition {
  updatedAt: Date;
}

export class UnmatchedKoreaderProgressRepository {
  constructor(private readonly database: Database) {}

  private get t() {
    return this.database.tables.koreaderUnmatchedProgress;
  }

  async find(userId: string, document: string): Promise<UnmatchedKoreaderRecord | undefined> {
    const t = this.t;
    const [row] = await this.database
      .handle()
      .select({ percentage: t.percentage, progress: t.progress, device: t.device, deviceId: t.deviceId, updatedAt: t.updatedAt })
      .from(t)
      .where(and(eq(t.userId, userId), eq(t.document, document)));
    return row;
  }

  /**
   * Stores the position with the server's time, replacing the document's earlier one; past
   * `maxPerUser` documents, the user's least recently pushed ones go first.
   */
  async save(userId: string, document: string, position: UnmatchedKoreaderPosition, maxPerUser: number): Promise<UnmatchedKoreaderRecord> {
    const t = this.t;
    const record = { ...position, updatedAt: new Date() };
    await this.database.transaction(async () => {
      const db = this.database.handle();
      await db
        .insert(t)
        .values({ userId, document, ...record })
        .onConflictDoUpdate({ target: [t.userId, t.document], set: record });
      const [{ stored } = { stored: 0 }] = await db.select({ stored: count() }).from(t).where(eq(t.userId, userId));
      if (stored > maxPerUser) {
        const oldest = db
          .select({ document: t.document })
          .from(t)
          .where(eq(t.userId, userId))
          .orderBy(asc(t.updatedAt))
          .limit(stored - maxPerUser);
        await db.delete(t).where(and(eq(t.userId, userId), inArray(t.document, oldest)));
      }
    });
    return record;
  }

  async delete(userId: string, document: string): Promise<void> {
    const t = this.t;
    await this.database.transaction(async () => {
      await this.database
        .handle()
        .delete(t)
        .where(and(eq(t.userId, userId), eq(t.document, document)));
    });
  }
}
