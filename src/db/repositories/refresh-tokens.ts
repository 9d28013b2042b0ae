import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";

export type RefreshTokenStatus = "active" | "used" | "revoked";

export interface RefreshTokenRecord {
  id: string;
  userId: string;
  familyId: string;
  tokenHash: string;
  /** The account's token version when the family began. */
  tokenVersion: number;
  status: RefreshTokenStatus;
  expiresAt: Date;
  createdAt: Date;
  usedAt: Date | null;
}

export type NewRefreshToken = Pick<RefreshTokenRecord, "userId" | "familyId" | "tokenHash" | "tokenVersion" | "expiresAt">;

export class RefreshTokenRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.refreshTokens;
  }

  async insert(token: NewRefreshToken): Promise<RefreshTokenRecord> {
    const record: RefreshTokenRecord = { id: newId(), ...token, status: "active", createdAt: new Date(), usedAt: null };
    await this.database.transaction(async () => {
      await this.db.insert(this.t).values(record);
    });
    return record;
  }

  async findByHash(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(eq(this.t.tokenHash, tokenHash));
    return row;
  }

  /**
   * Flips the token from active to used and returns it; undefined when it was not active.
   * A single conditional UPDATE, so of concurrent callers presenting the same token exactly
   * one gets the row (PostgreSQL re-checks the condition after the row lock; SQLite serialises).
   */
  async markUsed(tokenHash: string, now: Date): Promise<RefreshTokenRecord | undefined> {
    return this.database.transaction(async () => {
      const [row] = await this.db
        .update(this.t)
        .set({ status: "used", usedAt: now })
        .where(and(eq(this.t.tokenHash, tokenHash), eq(this.t.status, "active")))
        .returning();
      return row;
    });
  }

  /** Revokes the active token with this hash; false when there was none. */
  async revokeActive(tokenHash: string): Promise<boolean> {
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set({ status: "revoked" })
        .where(and(eq(this.t.tokenHash, tokenHash), eq(this.t.status, "active")))
        .returning({ id: this.t.id });
      return rows.length > 0;
    });
  }

  async revokeActiveInFamily(familyId: string): Promise<number> {
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set({ status: "revoked" })
        .where(and(eq(this.t.familyId, familyId), eq(this.t.status, "active")))
        .returning({ id: this.t.id });
      return rows.length;
    });
  }

  async revokeActiveOfUser(userId: string): Promise<number> {
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set({ status: "revoked" })
        .where(and(eq(this.t.userId, userId), eq(this.t.status, "active")))
        .returning({ id: this.t.id });
      return rows.length;
    });
  }

  /**
   * Moves the user's active tokens issued under `fromVersion` to `toVersion` (the families that
   * are to outlive a raise of the token version); returns how many.
   */
  async carryActiveOfUser(userId: string, fromVersion: number, toVersion: number): Promise<number> {
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set({ tokenVersion: toVersion })
        .where(and(eq(this.t.userId, userId), eq(this.t.status, "active"), eq(this.t.tokenVersion, fromVersion)))
        .returning({ id: this.t.id });
      return rows.length;
    });
  }

  /** Deletes every token (whatever its status) that expired before `now`; returns how many. */
  async deleteExpired(now: Date): Promise<number> {
    return this.database.transaction(async () => {
      const rows = await this.db.delete(this.t).where(lt(this.t.expiresAt, now)).returning({ id: this.t.id });
      return rows.length;
    });
  }
}
