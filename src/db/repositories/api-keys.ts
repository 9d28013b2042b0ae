import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";
import { preparedOnce } from "./prepared";
import { RecentReads } from "./recent-reads";

/** What an API key may do: everything its owner may except creating credentials, or reading only (and recording reading progress). */
export type ApiKeyScope = "full" | "reader";

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  keyPrefix: string;
  keyHash: string;
  scope: ApiKeyScope;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export type NewApiKey = Pick<ApiKeyRecord, "userId" | "name" | "keyPrefix" | "keyHash" | "scope" | "expiresAt">;

export class ApiKeyRepository {
  /** Every request authenticated by an API key looks its key up: prepared once. */
  private readonly byPrefix = preparedOnce(() =>
    this.database.root.select().from(this.t).where(eq(this.t.keyPrefix, sql.placeholder("keyPrefix"))).prepare("api_key_by_prefix"),
  );

  /** Clients with a key send it with every request (OPDS readers, page after page). */
  private readonly recentByPrefix: RecentReads<ApiKeyRecord | undefined>;

  constructor(private readonly database: Database) {
    this.recentByPrefix = new RecentReads(database);
  }

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.apiKeys;
  }

  async insert(key: NewApiKey): Promise<ApiKeyRecord> {
    const record: ApiKeyRecord = { id: newId(), ...key, createdAt: new Date(), lastUsedAt: null };
    await this.database.transaction(async () => {
      await this.db.insert(this.t).values(record);
    });
    return record;
  }

  async listOfUser(userId: string): Promise<ApiKeyRecord[]> {
    return this.db.select().from(this.t).where(eq(this.t.userId, userId)).orderBy(asc(this.t.createdAt));
  }

  async findByPrefix(keyPrefix: string): Promise<ApiKeyRecord | undefined> {
    return this.recentByPrefix.get(keyPrefix, async () => {
      const [row] = await this.byPrefix().execute({ keyPrefix });
      return row;
    });
  }

  /** Another process deleted a key: no key read so far is reused. */
  forgetRecentReads(): void {
    this.recentByPrefix.forgetAll();
  }

  /** Deletes the key when it belongs to `userId`; false when there is no such key of theirs. */
  async deleteOfUser(id: string, userId: string): Promise<boolean> {
    return this.database.transaction(async () => {
      const rows = await this.db
        .delete(this.t)
        .where(and(eq(this.t.id, id), eq(this.t.userId, userId)))
        .returning({ id: this.t.id });
      return rows.length > 0;
    });
  }

  /** Deletes every key of the user; returns how many there were. */
  async deleteAllOfUser(userId: string): Promise<number> {
    return this.database.transaction(async () => {
      const rows = await this.db.delete(this.t).where(eq(this.t.userId, userId)).returning({ id: this.t.id });
      return rows.length;
    });
  }

  async recordUse(id: string, at: Date): Promise<void> {
    await this.database.transaction(async () => {
      await this.db.update(this.t).set({ lastUsedAt: at }).where(eq(this.t.id, id));
    });
  }
}
