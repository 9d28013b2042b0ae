import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";

export interface EmailVerificationTokenRecord {
  id: string;
  userId: string;
  tokenHash: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

export class EmailVerificationTokenRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.emailVerificationTokens;
  }

  /** Stores a new token for the user and drops their unused older ones: only the latest link works. */
  async replaceForUser(userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.database.transaction(async () => {
      await this.db.delete(this.t).where(and(eq(this.t.userId, userId), isNull(this.t.usedAt)));
      await this.db.insert(this.t).values({ id: newId(), userId, tokenHash, expiresAt, usedAt: null, createdAt: new Date() });
    });
  }

  async findByHash(tokenHash: string): Promise<EmailVerificationTokenRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(eq(this.t.tokenHash, tokenHash));
    return row;
  }

  /** Marks the token used; false when it had been used already (single use, also under concurrency). */
  async markUsed(id: string, at: Date): Promise<boolean> {
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set({ usedAt: at })
        .where(and(eq(this.t.id, id), isNull(this.t.usedAt)))
        .returning({ id: this.t.id });
      return rows.length > 0;
    });
  }
}
