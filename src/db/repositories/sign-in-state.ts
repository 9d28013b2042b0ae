/**
 * Sign-in state that every process and instance must share: failed sign-ins under their
 * throttle keys, the addresses that signed in to an account, and single sign-on attempts
 * waiting for the provider's callback.
 */
import { and, asc, count, eq, gt, inArray, lt } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";

export interface PendingSignInRecord {
  state: string;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  redirectUri: string;
  expiresAt: Date;
}

export class LoginFailureRepository {
  constructor(private readonly database: Database) {}

  private get t() {
    return this.database.tables.loginFailures;
  }

  /** The failure times (ms, oldest first) under each of `keys` since `since`. */
  async recent(keys: string[], since: Date): Promise<Map<string, number[]>> {
    const rows = await this.database
      .handle()
      .select({ key: this.t.key, failedAt: this.t.failedAt })
      .from(this.t)
      .where(and(inArray(this.t.key, keys), gt(this.t.failedAt, since)))
      .orderBy(asc(this.t.failedAt));
    const byKey = new Map<string, number[]>(keys.map((key) => [key, []]));
    for (const row of rows) byKey.get(row.key)?.push(row.failedAt.getTime());
    return byKey;
  }

  /** Records one failure under every key, and drops failures older than `forgetBefore`. */
  async record(keys: string[], at: Date, forgetBefore: Date): Promise<void> {
    await this.database.transaction(async () => {
      const db = this.database.handle();
      await db.delete(this.t).where(lt(this.t.failedAt, forgetBefore));
      await db.insert(this.t).values(keys.map((key) => ({ id: newId(), key, failedAt: at })));
    });
  }

  /** Drops the failures under `key`; whether there were any. */
  async forget(key: string): Promise<boolean> {
    return this.database.transaction(async () => {
      const removed = await this.database.handle().delete(this.t).where(eq(this.t.key, key)).returning({ id: this.t.id });
      return removed.length > 0;
    });
  }
}

/** Addresses that signed in to an account (by the throttle's account key), with the last time. */
export class TrustedSignInRepository {
  constructor(private readonly database: Database) {}

  private get t() {
    return this.database.tables.trustedSignIns;
  }

  /** Whether `address` signed in to `account` after `since`. */
  async signedInSince(address: string, account: string, since: Date): Promise<boolean> {
    const [row] = await this.database
      .handle()
      .select({ at: this.t.signedInAt })
      .from(this.t)
      .where(and(eq(this.t.address, address), eq(this.t.account, account), gt(this.t.signedInAt, since)));
    return row !== undefined;
  }

  /** Records a sign-in of `address` to `account`, and drops those older than `forgetBefore`. */
  async record(address: string, account: string, at: Date, forgetBefore: Date): Promise<void> {
    await this.database.transaction(async () => {
      const db = this.database.handle();
      await db.delete(this.t).where(lt(this.t.signedInAt, forgetBefore));
      await db
        .insert(this.t)
        .values({ address, account, signedInAt: at })
        .onConflictDoUpdate({ target: [this.t.address, this.t.account], set: { signedInAt: at } });
    });
  }
}

export class PendingSignInRepository {
  constructor(private readonly database: Database) {}

  private get t() {
    return this.database.tables.oidcPendingSignIns;
  }

  /** Stores an attempt; expired ones go, and past `max` waiting attempts the oldest go first. */
  async save(record: PendingSignInRecord, now: Date, max: number): Promise<void> {
    await this.database.transaction(async () => {
      const db = this.database.handle();
      await db.delete(this.t).where(lt(this.t.expiresAt, now));
      const [{ waiting } = { waiting: 0 }] = await db.select({ waiting: count() }).from(this.t);
      if (waiting >= max) {
        const oldest = db.select({ state: this.t.state }).from(this.t).orderBy(asc(this.t.createdAt)).limit(waiting - max + 1);
        await db.delete(this.t).where(inArray(this.t.state, oldest));
      }
      await db.insert(this.t).values({ ...record, createdAt: now });
    });
  }

  /** Takes the attempt out (it can be completed once, by whichever process the callback reaches). */
  async take(state: string): Promise<PendingSignInRecord | undefined> {
    return this.database.transaction(async () => {
      const [row] = await this.database.handle().delete(this.t).where(eq(this.t.state, state)).returning();
      return row;
    });
  }
}
