/**
 * Leases on queued rows, the same for scans (`scans`) and the other background jobs (`jobs`):
 * a row is claimable when it is pending and due (no `run_after`, or past it), or running under
 * a lease that expired (its owner died or stalled: the claim takes it over). A claim marks the
 * row running, held by `owner` until `leaseMs` from now, on PostgreSQL with FOR UPDATE SKIP
 * LOCKED so processes claiming at once take different rows (SQLite serialises its writers). The
 * owner renews the leases it holds (heartbeat); a renewal that no longer matches, or a read of
 * the rows it still holds (stillHeld), tells it the row was taken over or ended elsewhere. Releasing puts a held row back to pending.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or, type SQL } from "drizzle-orm";
import type { Database, Tables } from "../database";
import { claimingRead } from "./row-lock";

type LeasedTable = Tables["scans"] | Tables["jobs"];
type LeasedRow<T extends LeasedTable> = T["$inferSelect"];
/** Columns a claim or a release sets: values, or SQL (`attempts + 1`). */
type Changes<T extends LeasedTable> = { [K in keyof LeasedRow<T>]?: LeasedRow<T>[K] | SQL };

export interface Claimed<Row> {
  row: Row;
  /** Claimed from another owner whose lease expired. */
  takenOver: boolean;
  /**
   * Claimed back from the claimant itself: its own lease expired while it could not renew it
   * (the database was away), e.g. a row whose release failed then. Not a takeover.
   */
  reclaimed: boolean;
}

export class Lease<T extends LeasedTable> {
  constructor(
    private readonly database: Database,
    private readonly table: (tables: Tables) => T,
  ) {}

  private get t(): T {
    return this.table(this.database.tables);
  }

  /** Running under a lease that expired (or was never set). */
  expired(now: Date): SQL {
    const t = this.t;
    return and(eq(t.status, "running"), or(isNull(t.leaseExpiresAt), lt(t.leaseExpiresAt, now)))!;
  }

  /** The claimable rule: pending and due, or running past its lease. */
  claimable(now: Date): SQL {
    const t = this.t;
    return or(and(eq(t.status, "pending"), or(isNull(t.runAfter), lte(t.runAfter, now))), this.expired(now))!;
  }

  /** The rows of `ids` that `owner` still holds. */
  held(ids: readonly string[], owner: string): SQL {
    const t = this.t;
    return and(inArray(t.id, [...ids]), eq(t.owner, owner), eq(t.status, "running"))!;
  }

  /**
   * Claims up to `limit` claimable rows that also match `where`, oldest request first, for
   * `owner` until `leaseMs` from now; `set` adds what the kind of row resets on a claim.
   */
  async claim(where: SQL | undefined, owner: string, leaseMs: number, limit: number, set: Changes<T>): Promise<Claimed<LeasedRow<T>>[]> {
    const t = this.t as Tables["jobs"];
    return this.database.transaction(async () => {
      // The transaction's handle: the FOR UPDATE lock holds until the update.
      const db = this.database.handle();
      const now = new Date();
      const claimable = and(where, this.claimable(now));
      const candidates = await claimingRead(
        this.database,
        db.select({ id: t.id, status: t.status, owner: t.owner }).from(t).where(claimable).orderBy(asc(t.requestedAt), asc(t.id)).limit(limit),
      );
      if (candidates.length === 0) return [];
      const rows = (await db
        .update(t)
        .set({ ...set, status: "running", owner, leaseExpiresAt: new Date(now.getTime() + leaseMs), startedAt: now } as Partial<Tables["jobs"]["$inferInsert"]>)
        .where(and(inArray(t.id, candidates.map((candidate) => candidate.id)), claimable))
        .returning()) as LeasedRow<T>[];
      const expiredOwners = new Map(candidates.filter((candidate) => candidate.status === "running").map((candidate) => [candidate.id, candidate.owner]));
      return rows.map((row) => {
        const expired = expiredOwners.has(row.id);
        const own = expiredOwners.get(row.id) === owner;
        return { row, takenOver: expired && !own, reclaimed: expired && own };
      });
    });
  }

  /** The owner's heartbeat: renews the leases of `ids` it still holds and returns those ids. */
  async renew(ids: readonly string[], owner: string, leaseMs: number): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const t = this.t as Tables["jobs"];
    const rows = await this.database.transaction(() =>
      this.database
        .handle()
        .update(t)
        .set({ leaseExpiresAt: new Date(Date.now() + leaseMs) })
        .where(this.held(ids, owner))
        .returning({ id: t.id }),
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The ids of `ids` that `owner` still holds: a read, for noticing a row lost between renewals. */
  async stillHeld(ids: readonly string[], owner: string): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const t = this.t as Tables["jobs"];
    const rows = await this.database.handle().select({ id: t.id }).from(t).where(this.held(ids, owner));
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Puts a row `owner` holds (and that matches `also`) back to pending, with `changes`: any
   * process may claim it once due. Undefined when `owner` no longer held it.
   */
  async release(id: string, owner: string, changes: Changes<T>, also?: SQL): Promise<LeasedRow<T> | undefined> {
    const t = this.t as Tables["jobs"];
    const [row] = await this.database.transaction(() =>
      this.database
        .handle()
        .update(t)
        .set({ ...changes, ...RELEASED } as Partial<Tables["jobs"]["$inferInsert"]>)
        .where(and(this.held([id], owner), also))
        .returning(),
    );
    return row as LeasedRow<T> | undefined;
  }
}

/** A released row: pending, held by nobody. */
export const RELEASED = { status: "pending", owner: null, leaseExpiresAt: null } as const;
