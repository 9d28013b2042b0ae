/** Each user's KOReader sync key, as a hash (see the koreader_keys table). */
import { eq } from "drizzle-orm";
import type { Database } from "../database";

export interface KoreaderKeyRecord {
  keyHash: string;
  createdAt: Date;
}

export class KoreaderKeyRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  async find(userId: string): Promise<KoreaderKeyRecord | undefined> {
    const k = this.database.tables.koreaderKeys;
    const [row] = await this.db.select({ keyHash: k.keyHash, createdAt: k.createdAt }).from(k).where(eq(k.userId, userId));
    return row;
  }

  /** Replaces the user's key. */
  async save(userId: string, keyHash: string): Promise<KoreaderKeyRecord> {
    const k = this.database.tables.koreaderKeys;
    const record = { keyHash, createdAt: new Date() };
    await this.database.transaction(async () => {
      await this.db.insert(k).values({ userId, ...record }).onConflictDoUpdate({ target: k.userId, set: record });
    });
    return record;
  }

  async delete(userId: string): Promise<void> {
    const k = this.database.tables.koreaderKeys;
    await this.database.transaction(async () => {
      await this.db.delete(k).where(eq(k.userId, userId));
    });
  }
}
