import { and, count, desc, eq, inArray, max, sql } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";
import { Lease } from "./lease";
import { lockingRead } from "./row-lock";

export type ScanMode = "normal" | "deep";
export type ScanState = "pending" | "running" | "completed" | "failed" | "cancelled";
export type ScanTrigger = "manual" | "schedule" | "startup" | "watch";

export interface ScanCounters {
  filesDiscovered: number;
  filesProcessed: number;
  seriesCreated: number;
  /** Series whose name the scan changed (the series name rule, src/library/series-settlement.ts). */
  seriesRenamed: number;
  booksAdded: number;
  booksUpdated: number;
  booksDeleted: number;
  booksRestored: number;
  booksMoved: number;
  errors: number;
  pathsSkipped: number;
  linksOutside: number;
  removalsHeld: number;
}

export interface ScanRecord extends ScanCounters {
  id: string;
  libraryId: string;
  mode: ScanMode;
  status: ScanState;
  trigger: ScanTrigger;
  failureReason: string | null;
  confirmRemovals: boolean;
  requestedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  /** The process running the scan (its instance id) and until when it holds it. */
  owner?: string | null;
  leaseExpiresAt?: Date | null;
  /** Times the scan was queued again after a transient failure, and when it may run next. */
  retries: number;
  runAfter: Date | null;
  /** Times the scan was taken over after its process stopped while running it. */
  takeovers: number;
}

export const ZERO_COUNTERS: ScanCounters = {
  filesDiscovered: 0,
  filesProcessed: 0,
  seriesCreated: 0,
  seriesRenamed: 0,
  booksAdded: 0,
  booksUpdated: 0,
  booksDeleted: 0,
  booksRestored: 0,
  booksMoved: 0,
  errors: 0,
  pathsSkipped: 0,
  linksOutside: 0,
  removalsHeld: 0,
};

const ACTIVE: ScanState[] = ["pending", "running"];

export interface ScanSummary {
  /** How many scans are (or ended) in each state. */
  byStatus: Record<ScanState, number>;
  lastCompletedAt: Date | null;
}

export class ScanRepository {
  private readonly lease: Lease<Database["tables"]["scans"]>;

  constructor(private readonly database: Database) {
    this.lease = new Lease(database, (tables) => tables.scans);
  }

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.scans;
  }

  /**
   * Queues a scan unless one is pending or running for the library. Returns undefined when one
   * is. The check and the insert share a transaction; on PostgreSQL the library row is locked
   * so two concurrent requests cannot both queue.
   */
  async enqueue(libraryId: string, mode: ScanMode, trigger: ScanTrigger, confirmRemovals = false): Promise<ScanRecord | undefined> {
    return this.database.transaction(async () => {
      const libraries = this.database.tables.libraries;
      await lockingRead(this.database, this.db.select({ id: libraries.id }).from(libraries).where(eq(libraries.id, libraryId)));
      const [active] = await this.db
        .select({ id: this.t.id })
        .from(this.t)
        .where(and(eq(this.t.libraryId, libraryId), inArray(this.t.status, ACTIVE)));
      if (active) return undefined;
      const record: ScanRecord = {
        id: newId(),
        libraryId,
        mode,
        status: "pending",
        trigger,
        failureReason: null,
        confirmRemovals,
        requestedAt: new Date(),
        startedAt: null,
        completedAt: null,
        retries: 0,
        runAfter: null,
        takeovers: 0,
        ...ZERO_COUNTERS,
      };
      await this.db.insert(this.t).values(record);
      return record;
    });
  }

  async latestForLibrary(libraryId: string): Promise<ScanRecord | undefined> {
    const [row] = await this.db
      .select()
      .from(this.t)
      .where(eq(this.t.libraryId, libraryId))
      .orderBy(desc(this.t.requestedAt), desc(this.t.id))
      .limit(1);
    return row;
  }

  async findById(id: string): Promise<ScanRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(eq(this.t.id, id));
    return row;
  }

  async activeForLibrary(libraryId: string): Promise<ScanRecord | undefined> {
    const [row] = await this.db
      .select()
      .from(this.t)
      .where(and(eq(this.t.libraryId, libraryId), inArray(this.t.status, ACTIVE)));
    return row;
  }

  /**
   * Claims the oldest claimable scan (./lease.ts: pending and due, a scan queued again after a
   * transient failure waiting for its `runAfter`; or running past its owner's lease: the owner
   * died) for `owner` until `leaseMs` from now: it becomes running, its counters start again,
   * and a takeover counts in `takeovers`. Returns the claimed scan and whether it was taken over.
   */
  async claimNext(owner: string, leaseMs: number): Promise<{ scan: ScanRecord; takenOver: boolean; reclaimed: boolean } | undefined> {
    // The row's status before the update: running means its lease expired, a takeover unless
    // the lease was the claimant's own (it could not renew it while the database was away).
    const takeovers = sql<number>`case when ${this.t.status} = 'running' and coalesce(${this.t.owner}, '') <> ${owner} then ${this.t.takeovers} + 1 else ${this.t.takeovers} end`;
    const [claimed] = await this.lease.claim(undefined, owner, leaseMs, 1, { failureReason: null, takeovers, ...ZERO_COUNTERS });
    return claimed && { scan: claimed.row, takenOver: claimed.takenOver, reclaimed: claimed.reclaimed };
  }

  /** The owner's heartbeat for the scans it runs; returns the ids it still holds (not taken over, cancelled or ended). */
  renewLeases(owner: string, ids: readonly string[], leaseMs: number): Promise<Set<string>> {
    return this.lease.renew(ids, owner, leaseMs);
  }

  /** The ids of `ids` that `owner` still holds, read without renewing (a cancellation made elsewhere shows here). */
  heldBy(owner: string, ids: readonly string[]): Promise<Set<string>> {
    return this.lease.stillHeld(ids, owner);
  }

  /**
   * A scan its owner queues again (a transient failure): pending with `changes`, for any process
   * to claim once due. Undefined when `owner` no longer held it.
   */
  release(id: string, owner: string, changes: Partial<Omit<ScanRecord, "id" | "libraryId">>): Promise<ScanRecord | undefined> {
    return this.lease.release(id, owner, changes);
  }

  /** Updates a scan only while `owner` holds it (a scan taken over is the new owner's to write). */
  async updateHeld(id: string, owner: string, changes: Partial<Omit<ScanRecord, "id" | "libraryId">>): Promise<ScanRecord | undefined> {
    return this.database.transaction(async () => {
      const [row] = await this.db
        .update(this.t)
        .set(changes)
        .where(and(eq(this.t.id, id), eq(this.t.owner, owner)))
        .returning();
      return row;
    });
  }

  /** For metrics: scans per state and when the latest successful one finished. */
  async summary(): Promise<ScanSummary> {
    const rows = await this.db.select({ status: this.t.status, n: count() }).from(this.t).groupBy(this.t.status);
    const [last] = await this.db.select({ at: max(this.t.completedAt) }).from(this.t).where(eq(this.t.status, "completed"));
    const byStatus: Record<ScanState, number> = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const row of rows) byStatus[row.status] = row.n;
    return { byStatus, lastCompletedAt: last?.at ?? null };
  }

  /**
   * Moves a scan on only if it is still in state `from` (the worker starting a pending scan and
   * a user cancelling it may meet): the one that loses gets undefined and backs off.
   */
  async transition(id: string, from: ScanState, changes: Partial<Omit<ScanRecord, "id" | "libraryId">>): Promise<ScanRecord | undefined> {
    return this.database.transaction(async () => {
      const [row] = await this.db
        .update(this.t)
        .set(changes)
        .where(and(eq(this.t.id, id), eq(this.t.status, from)))
        .returning();
      return row;
    });
  }

  /**
   * At the start of a process that runs jobs: fails the running scans nobody holds any more (a
   * crash, kill -9). On SQLite only one process runs jobs, so that is every running scan; on
   * PostgreSQL other live instances may be running scans, so only those whose lease expired.
   */
  async failAbandoned(reason: string): Promise<number> {
    const abandoned =
      this.database.dialect === "sqlite"
        ? eq(this.t.status, "running")
        : this.lease.expired(new Date());
    return this.database.transaction(async () => {
      const rows = await this.db
        .update(this.t)
        .set({ status: "failed", failureReason: reason, completedAt: new Date() })
        .where(abandoned)
        .returning({ id: this.t.id });
      return rows.length;
    });
  }
}
