/**
 * The job queue for background work other than scans (the `jobs` table), the same on both
 * databases: one row per (kind, key), claimed, held and taken over under a lease (./lease.ts, as
 * scans are). Every write of a claimed job is conditional on its owner, so a process that lost a
 * job cannot undo the new owner's work.
 */
import { and, count, eq, gt, inArray, ne, sql } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";
import { Lease, RELEASED } from "./lease";

export type JobKind = "thumbnail" | "duplicates";
export type JobState = "pending" | "running" | "completed" | "failed";

export interface JobRecord {
  id: string;
  kind: JobKind;
  key: string;
  status: JobState;
  attempts: number;
  requestedAt: Date;
  runAfter: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  owner: string | null;
  leaseExpiresAt: Date | null;
  lastError: string | null;
}

export interface ClaimedJob {
  job: JobRecord;
  /** Claimed from another owner whose lease expired (it died or stalled). */
  takenOver: boolean;
  /** Claimed back by its own owner, whose lease expired while the database was away (./lease.ts). */
  reclaimed: boolean;
}

export class JobRepository {
  private readonly lease: Lease<Database["tables"]["jobs"]>;

  constructor(private readonly database: Database) {
    this.lease = new Lease(database, (tables) => tables.jobs);
  }

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.jobs;
  }

  /**
   * Asks for the jobs (kind, key) of these keys, in one statement. A key already pending joins
   * (and runs now, past any backoff); a finished one is pending again; a running one stays with
   * its owner but gets a new `requestedAt`, so its owner runs it once more when it finishes
   * (what the job read may be out of date).
   */
  async enqueue(kind: JobKind, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const now = new Date();
    const t = this.t;
    const running = sql`${t.status} = 'running'`;
    await this.database.transaction(() =>
      this.db
        .insert(t)
        .values([...new Set(keys)].map((key) => ({ id: newId(), kind, key, status: "pending" as const, attempts: 0, requestedAt: now, runAfter: now })))
        .onConflictDoUpdate({
          target: [t.kind, t.key],
          set: {
            requestedAt: now,
            runAfter: now,
            status: sql`case when ${running} then ${t.status} else 'pending' end`,
            attempts: sql`case when ${running} then ${t.attempts} else 0 end`,
            lastError: sql`case when ${running} then ${t.lastError} else null end`,
          },
        }),
    );
  }

  async find(kind: JobKind, key: string): Promise<JobRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(and(eq(this.t.kind, kind), eq(this.t.key, key)));
    return row;
  }

  /** Jobs of `kind` waiting or running (the queue's length, for status and metrics). */
  async countActive(kind: JobKind): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(this.t)
      .where(and(eq(this.t.kind, kind), inArray(this.t.status, ["pending", "running"])));
    return row?.n ?? 0;
  }

  /** Jobs of `kind` some process could claim now (pending and due, or running past its lease). */
  async countClaimable(kind: JobKind): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(this.t)
      .where(and(eq(this.t.kind, kind), this.lease.claimable(new Date())));
    return row?.n ?? 0;
  }

  /**
   * Claims up to `limit` jobs of `kind` for `owner` until `leaseMs` from now, oldest request
   * first: pending ones that are due, and running ones whose lease expired. Each claim counts as
   * an attempt.
   */
  async claim(kind: JobKind, owner: string, leaseMs: number, limit: number): Promise<ClaimedJob[]> {
    const claimed = await this.lease.claim(eq(this.t.kind, kind), owner, leaseMs, limit, { attempts: sql`${this.t.attempts} + 1` });
    return claimed.map(({ row, takenOver, reclaimed }) => ({ job: row, takenOver, reclaimed }));
  }

  /** The owner's heartbeat for the jobs it works on; returns the ids it still holds. */
  renewLeases(owner: string, ids: readonly string[], leaseMs: number): Promise<Set<string>> {
    return this.lease.renew(ids, owner, leaseMs);
  }

  /**
   * Ends a job its owner ran: `outcome` null = completed, else failed saying why. A job asked for
   * again meanwhile (its `requestedAt` moved) is pending again instead. `keep` = false deletes
   * an ended job (thumbnails: the book records the outcome); true keeps it as the latest state.
   */
  async finish(job: JobRecord, owner: string, failure: string | null, keep: boolean): Promise<void> {
    const held = this.lease.held([job.id], owner);
    await this.database.transaction(async () => {
      const again = await this.lease.release(job.id, owner, { attempts: 0, runAfter: new Date() }, ne(this.t.requestedAt, job.requestedAt));
      if (again) return;
      if (!keep) {
        await this.db.delete(this.t).where(held);
        return;
      }
      await this.db
        .update(this.t)
        .set({ status: failure === null ? "completed" : "failed", lastError: failure, completedAt: new Date(), owner: null, leaseExpiresAt: null })
        .where(held);
    });
  }

  /** A transient failure: the job waits until `runAfter`, then any process may claim it again. */
  async retryLater(job: JobRecord, owner: string, runAfter: Date, cause: string): Promise<void> {
    await this.lease.release(job.id, owner, { runAfter, lastError: cause });
  }

  /** Pending jobs of `kind` waiting out a backoff are due now (a sign that the cause may have gone). */
  async retryNow(kind: JobKind): Promise<void> {
    const now = new Date();
    await this.database.transaction(() =>
      this.db
        .update(this.t)
        .set({ runAfter: now })
        .where(and(eq(this.t.kind, kind), eq(this.t.status, "pending"), gt(this.t.runAfter, now))),
    );
  }

  /** A pending job done some other way (a thumbnail made for a request): it need not run. */
  async dropPending(kind: JobKind, key: string): Promise<void> {
    await this.database.transaction(() =>
      this.db.delete(this.t).where(and(eq(this.t.kind, kind), eq(this.t.key, key), eq(this.t.status, "pending"))),
    );
  }

  /**
   * At the start of a process's runner of `kind` on SQLite, where it is the only process: the running
   * jobs of that kind belonged to a process that stopped, so they are pending again at once instead of after
   * their lease. On PostgreSQL other live instances may hold jobs: expired leases do the work.
   */
  async releaseAbandoned(kind: JobKind): Promise<number> {
    if (this.database.dialect !== "sqlite") return 0;
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set(RELEASED)
        // Of this kind only: the runner of another kind in this process may already hold its jobs.
        .where(and(eq(this.t.kind, kind), eq(this.t.status, "running")))
        .returning({ id: this.t.id });
      return rows.length;
    });
  }
}
