/**
 * The runner of one kind of leased job (the `jobs` table: thumbnails, duplicate detection) in a
 * process that runs jobs. It claims up to `concurrency` jobs at a time from the database, so
 * work asked for by any process (a web-role process, another instance) is done by whichever
 * process with jobs claims it; it renews the leases of the jobs it works on every third of
 * `leaseMs` (./lease-heartbeat.ts), so a process that dies (SIGKILL, a crashed machine) leaves
 * its jobs to be claimed again once their lease expired. A transient failure (database away, full disk) is retried
 * with doubling pauses; a job claimed `maxAttempts` times without an outcome (its process died
 * each time, or it kept failing transiently) is given up, so a job that kills its process
 * cannot take every process down in turn. The database side is src/db/repositories/jobs.ts
 * (leases: src/db/repositories/lease.ts, shared with scans), the same on SQLite and PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { ClaimedJob, JobKind, JobRecord, Repositories } from "../db";
import type { JobEvents } from "../events/job-events";
import { transientCause } from "../library/transient";
import type { Logger } from "../logging/logger";
import { LeaseHeartbeat } from "./lease-heartbeat";

/** Who holds a job (or a scan) run by this process: readable by an operator in the database. */
export const INSTANCE_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * What a process logs when it claims back a row whose lease was its own (it could not renew it:
 * the database was away, or the process stalled): not a takeover, nobody else held it.
 */
export const OWN_LEASE_EXPIRED = {
  job: "job claimed again: its lease, this process's own, expired unrenewed (the database was away, or the process stalled)",
  scan: "scan started again: its lease, this process's own, expired unrenewed (the database was away, or the process stalled)",
} as const;

/** The longest pause between two attempts after transient failures. */
const MAX_BACKOFF_MS = 3600_000;

/** The pause before retry number `retriesSoFar + 1`: `backoffMs`, doubling with each retry, at most an hour. */
export function retryPause(backoffMs: number, retriesSoFar: number): number {
  return Math.min(backoffMs * 2 ** retriesSoFar, MAX_BACKOFF_MS);
}

export interface LeasedJobSettings {
  /** Jobs of this kind run at once in this process. */
  concurrency: number;
  /** How long a claimed job stays held without a heartbeat (scanner.job_lease_seconds). */
  leaseMs: number;
  /** Claims (first run, takeovers, retries) before a job is given up. */
  maxAttempts: number;
  /** The pause after the first transient failure; it doubles with each attempt. */
  backoffMs: number;
  /** true: an ended job stays as the latest state (completed or failed); false: it is deleted. */
  keepFinished: boolean;
  /**
   * Set: the jobs of this kind queued anywhere are counted at every poll and once idle (for
   * those who show the count), and called after every count a started process makes, so it
   * hears each value the process shows (thumbnails: the admin page's live count). Unset: only
   * `countQueued` counts.
   */
  onCount?: () => void;
  /** How often the runner looks for jobs queued by other processes. */
  pollMs?: number;
}

/**
 * Does one job. Resolves with a transient cause to retry the job later, or undefined when it
 * is done; a throw fails it (or retries it, when the error is transient).
 */
export type JobWork = (job: JobRecord) => Promise<string | undefined>;

export class LeasedJobs {
  /** The jobs this process works on, whose leases it renews. */
  private readonly held: LeaseHeartbeat;
  private readonly working = new Set<Promise<void>>();
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private started = false;
  private stopped = false;
  private paused = false;
  private poller: ReturnType<typeof setInterval> | undefined;
  /** Jobs of this kind pending or running anywhere, as counted at `at`. */
  private counted = { queued: 0, at: 0 };
  private counting: Promise<number> | undefined;
  /** When this process last queued jobs of this kind: a count started before is out of date. */
  private queuedHereAt = 0;

  constructor(
    private readonly repositories: Repositories,
    private readonly kind: JobKind,
    private readonly settings: LeasedJobSettings,
    private readonly work: JobWork,
    private readonly log: Logger,
    /** Told when a job's outcome is written (for someone waiting for it); none: nobody waits. */
    private readonly events?: JobEvents,
  ) {
    this.held = new LeaseHeartbeat((ids) => repositories.jobs.renewLeases(INSTANCE_ID, ids, settings.leaseMs), settings.leaseMs / 3);
  }

  /** Jobs of this kind pending or running anywhere, as last counted. */
  get queued(): number {
    return this.counted.queued;
  }

  /**
   * Counts the jobs of this kind pending or running anywhere, unless the last count is younger
   * than `maxAgeMs` (with `onCount`, a process with jobs counts at every poll); callers at
   * once share one count.
   */
  async countQueued(maxAgeMs = 0): Promise<number> {
    const { queued, at } = this.counted;
    if (at > this.queuedHereAt && Date.now() - at < maxAgeMs) return queued;
    this.counting ??= (async () => {
      const startedAt = Date.now();
      try {
        const counted = await this.repositories.jobs.countActive(this.kind);
        if (startedAt >= this.counted.at) this.counted = { queued: counted, at: startedAt };
        if (this.started) this.settings.onCount?.();
        return counted;
      } finally {
        this.counting = undefined;
      }
    })();
    return this.counting;
  }

  /** This process queued jobs: the last count is out of date. */
  countAgain(): void {
    this.queuedHereAt = Date.now();
  }

  /** This process runs jobs (role all or worker): claim what is queued, and keep looking. */
  async start(): Promise<void> {
    const released = await this.repositories.jobs.releaseAbandoned(this.kind);
    if (released > 0) this.log.warn("jobs of a stopped process queued again", { count: released });
    this.started = true;
    this.poller = setInterval(() => void this.poll(), this.settings.pollMs ?? 1000);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    await this.claiming;
    await Promise.all(this.working);
  }

  /** No new job starts until `resume()` (a scan catalogues first); running ones finish. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.kick();
  }

  /** Claims jobs now (one was just queued) instead of at the next poll. */
  kick(): void {
    if (!this.started || this.stopped || this.paused) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimFreeSlots().finally(() => {
      this.claiming = undefined;
      if (this.claimAgain) {
        this.claimAgain = false;
        this.kick();
      }
    });
  }

  /**
   * Resolves once this process has nothing of this kind left to do now: nothing running here
   * and nothing claimable (tests, shutdown). Returns at once while paused or not started.
   */
  async idle(): Promise<void> {
    while (this.started && !this.stopped) {
      await this.claiming;
      await Promise.all(this.working);
      if (this.paused) return;
      if (this.held.size === 0 && !this.claiming && (await this.repositories.jobs.countClaimable(this.kind)) === 0) {
        // The count as this process leaves the queue, not one made while its last jobs ran.
        if (this.settings.onCount) await this.countQueued();
        return;
      }
      this.kick();
      await Bun.sleep(20);
    }
  }

  private async poll(): Promise<void> {
    this.kick();
    if (!this.settings.onCount) return;
    try {
      await this.countQueued();
    } catch {
      // The database is away: the count stays as it was.
    }
  }

  private async claimFreeSlots(): Promise<void> {
    while (!this.paused && !this.stopped) {
      const free = this.settings.concurrency - this.held.size;
      if (free <= 0) return;
      let claimed: ClaimedJob[];
      try {
        claimed = await this.repositories.jobs.claim(this.kind, INSTANCE_ID, this.settings.leaseMs, free);
      } catch (error) {
        this.log.warn("jobs could not be claimed; the next poll tries again", { kind: this.kind, cause: transientCause(error) ?? (error as Error).message });
        return;
      }
      for (const claim of claimed) {
        // A job lost meanwhile runs on: its outcome is written only if it is still held.
        this.held.hold(claim.job.id);
        const running: Promise<void> = this.runOne(claim).finally(() => {
          this.held.drop(claim.job.id);
          this.working.delete(running);
          this.kick();
        });
        this.working.add(running);
      }
      if (claimed.length < free) return;
    }
  }

  private async runOne({ job, takenOver, reclaimed }: ClaimedJob): Promise<void> {
    const log = this.log.child({ job: this.kind, key: job.key });
    if (takenOver) log.info("job taken over: its owner's lease expired", { attempt: job.attempts });
    if (reclaimed) log.info(OWN_LEASE_EXPIRED.job, { attempt: job.attempts });
    let transient: string | undefined;
    let failure: string | null = null;
    if (job.attempts > this.settings.maxAttempts) {
      failure = `given up after ${this.settings.maxAttempts} attempts: ${job.lastError ?? "its process stopped while running it"}`;
      log.error("job given up", { reason: failure });
    } else {
      try {
        transient = await this.work(job);
      } catch (error) {
        transient = transientCause(error);
        if (!transient) {
          failure = (error as Error).message;
          log.error("job failed", { error: error as Error });
        }
      }
    }
    try {
      if (transient && job.attempts < this.settings.maxAttempts) {
        const pause = retryPause(this.settings.backoffMs, job.attempts - 1);
        log.warn("job not done, retried later", { cause: transient, attempt: job.attempts, retryInSeconds: pause / 1000 });
        await this.repositories.jobs.retryLater(job, INSTANCE_ID, new Date(Date.now() + pause), transient);
      } else {
        if (transient) {
          failure = `given up after ${job.attempts} attempts: ${transient}`;
          log.error("job given up", { reason: failure });
        }
        await this.repositories.jobs.finish(job, INSTANCE_ID, failure, this.settings.keepFinished);
      }
      this.events?.publish({ kind: this.kind, key: job.key });
    } catch (error) {
      // Left running under a lease nobody renews: another claim runs it again once it expires.
      log.warn("a job's outcome could not be recorded; it runs again after its lease", { cause: transientCause(error) ?? (error as Error).message });
    }
  }
}
