/**
 * Scan control: scans are queued in the database (so a queued scan survives a restart), run
 * one at a time in the background, report progress on the event channel, and can be cancelled.
 * A running scan is leased (src/db/repositories/lease.ts, as the other jobs are): its owner (this
 * process's instance id) renews the lease every third of `leaseMs` while it runs, and reads
 * every `pollMs` (without writing) whether it still holds the scan. Another process that runs
 * jobs takes over a scan whose lease expired (its owner died) and runs it again from the
 * start, except that the takeover reaching `takeoverLimit` ends it failed (a scan that kills
 * its process would go round the instances forever); an owner that finds it no longer holds
 * its scan (taken over, cancelled elsewhere, its library deleted) stops it, and writes its
 * outcome only if it still owns the row (cancelled elsewhere). At start, a process fails the running scans nobody
 * holds (ScanRepository.failAbandoned); the next scan of the library completes the work (the
 * catalogue only ever holds whole books).
 *
 * A scan that fails for a transient cause (the database away, a full disk: ./transient.ts) past
 * the scanner's own per-book retries is queued again, up to `retry.maxAttempts - 1` times,
 * waiting `retry.backoffMs` and then twice as long each time (`run_after`); any process that
 * runs jobs may claim it then (from when the retry is recorded, however long that took). While
 * the database refuses the claims themselves, the worker looks again less and less often, and
 * the scan's status shows the time of its next look. Any other failure ends the scan `failed`.
 *
 * Only the process that runs the jobs (`start()`, role all or worker) runs scans. Other
 * processes (role web, `--workers`) only queue and cancel them in the database; the runner
 * looks at the queue every `pollMs`, and its heartbeat's read of the running scan, as often, is
 * how it sees a cancellation made elsewhere.
 */
import type { Repositories, ScanCounters, ScanMode, ScanRecord, ScanTrigger } from "../db";
import { RELEASED, ZERO_COUNTERS } from "../db";
import { DomainError, notFound } from "../errors";
import type { ScanEvents } from "../events/scan-events";
import { LeaseHeartbeat } from "../jobs/lease-heartbeat";
import { INSTANCE_ID, type LeasedJobSettings, OWN_LEASE_EXPIRED, retryPause } from "../jobs/leased-jobs";
import type { Logger } from "../logging/logger";
import type { LibraryObserver } from "./libraries";
import { SuspiciousScan, type LibraryScanner } from "./scanner";
import { retryTransient, transientCause, TransientFailure } from "./transient";
import { RECENT_COUNT_MS, type ThumbnailQueue } from "./thumbnails";

const WORKER_RETRY_MS = 5000;
/** While the database keeps refusing (a full disk, an outage), the worker's looks back off up to this. */
const WORKER_MAX_RETRY_MS = 300_000;
/** A database outage between scans is logged at most this often. */
const OUTAGE_WARNING_INTERVAL_MS = 60_000;
/** The longest pause between two tries of a scan's final write. */
const FINAL_WRITE_MAX_PAUSE_MS = 5000;

export type ScanStatusValue = "idle" | ScanRecord["status"];

export interface ScanStatusDto extends ScanCounters {
  scanId: string | null;
  libraryId: string;
  mode: ScanMode | null;
  status: ScanStatusValue;
  trigger: ScanTrigger | null;
  failureReason: string | null;
  /** Thumbnails still waiting in the background queue (all libraries). */
  thumbnailsPending: number;
  requestedAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
}

/**
 * What a user who may not see the server's internals (AccessService.seesServerInternals) sees of
 * a scan: its state and times. The counters are library-wide (they would count files in series
 * hidden from the user), the failure reason can name server paths, and the thumbnail queue is
 * server-wide.
 */
export type ScanStateDto = Pick<ScanStatusDto, "scanId" | "libraryId" | "mode" | "status" | "trigger" | "requestedAt" | "startedAt" | "completedAt">;

export function toScanStateDto({ scanId, libraryId, mode, status, trigger, requestedAt, startedAt, completedAt }: ScanStatusDto): ScanStateDto {
  return { scanId, libraryId, mode, status, trigger, requestedAt, startedAt, completedAt };
}

export class ScanService implements LibraryObserver {
  private running: { scanId: string; libraryId: string; controller: AbortController } | undefined;
  private worker: Promise<void> | undefined;
  private lastOutageWarningAt = 0;
  /**
   * After the worker could not look for scans (the database refused: away, or its disk full),
   * when it looks again, and how long it waits after the next refusal: it backs off, and a
   * pending scan's status shows this time once its own retry time has passed.
   */
  private nextLookAt = 0;
  private lookAgainMs = WORKER_RETRY_MS;
  private wake = false;
  private stopped = false;
  /** Paths of the targeted (watch) scans still pending, by scan id; lost on restart: the scan is then a full one. */
  private readonly scopes = new Map<string, Set<string>>();
  /** Set by `start()`: this process runs the queued scans. */
  private runsScans = false;
  /** Work a completed scan does before it reports completion (lists from metadata, issue 33). */
  private readonly afterCatalogue: ((libraryId: string) => Promise<void>)[] = [];
  private poller: ReturnType<typeof setInterval> | undefined;
  /** Who holds a scan this process runs: readable by an operator looking at the scans table. */
  private readonly instanceId = INSTANCE_ID;
  /** How long a running scan stays held without a heartbeat (scanner.job_lease_seconds). */
  private readonly leaseMs: number;
  /** Renews the running scan's lease, and sees it lost (taken over, cancelled elsewhere, deleted). */
  private readonly heartbeat: LeaseHeartbeat;

  constructor(
    private readonly repositories: Repositories,
    private readonly scanner: LibraryScanner,
    private readonly events: ScanEvents<ScanStatusDto>,
    private readonly thumbnails: ThumbnailQueue,
    private readonly log: Logger,
    /**
     * The lease, the retries of a scan after a transient failure (scanner.retry_*), and the
     * takeover that gives a scan up (scanner.scan_takeover_limit).
     */
    private readonly retry: Pick<LeasedJobSettings, "leaseMs" | "maxAttempts" | "backoffMs"> & { takeoverLimit: number },
    /** How long the final write of a scan is retried while the database is away. */
    private readonly finalWriteBudgetMs = 120_000,
    /** How often the runner looks for scans queued or cancelled by other processes. */
    private readonly pollMs = 1000,
  ) {
    this.leaseMs = retry.leaseMs;
    // Renewed every third of the lease; between renewals, read as often as the queue is looked
    // at: a cancellation made by another process stops the scan as soon as a queued scan would
    // start, for a read instead of a write.
    this.heartbeat = new LeaseHeartbeat((ids) => repositories.scans.renewLeases(this.instanceId, ids, this.leaseMs), this.leaseMs / 3, {
      stillHeld: (ids) => repositories.scans.heldBy(this.instanceId, ids),
      everyMs: pollMs,
    });
  }

  /** At start-up of the process that runs jobs: fail abandoned scans, then run whatever is queued. */
  /** Runs `work` after every scan this process completes, before the scan reports completion; a failure is logged, not the scan's. */
  afterCompletedScans(work: (libraryId: string) => Promise<void>): void {
    this.afterCatalogue.push(work);
  }

  async start(): Promise<void> {
    const interrupted = await this.repositories.scans.failAbandoned("interrupted: the service stopped while the scan was running");
    if (interrupted > 0) this.log.warn("marked interrupted scans as failed", { count: interrupted });
    this.runsScans = true;
    this.poller = setInterval(() => this.poll(), this.pollMs);
    this.pump();
  }

  /** Stops the worker: the running scan is cancelled (it will be marked cancelled). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    this.running?.controller.abort();
    await this.worker;
  }

  async request(libraryId: string, mode: ScanMode | undefined, trigger: ScanTrigger, confirmRemovals = false): Promise<ScanStatusDto> {
    const library = await this.repositories.libraries.findById(libraryId);
    if (!library) throw notFound("library");
    const scan = await this.repositories.scans.enqueue(libraryId, mode ?? library.scanningConfig.defaultMode, trigger, confirmRemovals);
    if (!scan) {
      this.pump(); // a pending scan whose worker stopped on an error runs now
      throw new DomainError("Conflict", "a scan of this library is already pending or running");
    }
    this.pump();
    return this.toDto(scan);
  }

  /**
   * A targeted scan of these paths (folders or files) for the library watcher. Joins a pending
   * watch scan, or counts as done when a full scan is pending (it will see them). Returns false
   * while a scan of the library runs: the caller keeps the paths and asks again later.
   */
  async requestPaths(libraryId: string, paths: readonly string[]): Promise<boolean> {
    const active = await this.repositories.scans.activeForLibrary(libraryId);
    if (active?.status === "pending") {
      const scope = this.scopes.get(active.id);
      // A watch scan whose paths are not here any more was claimed meanwhile: ask again later.
      if (!scope && active.trigger === "watch") return false;
      for (const path of paths) scope?.add(path);
      return true;
    }
    if (active) return false;
    const scan = await this.repositories.scans.enqueue(libraryId, "normal", "watch");
    if (!scan) return false;
    this.scopes.set(scan.id, new Set(paths));
    this.pump();
    return true;
  }

  /**
   * An admin's answer to a scan the suspicious-scan guard stopped: a new scan that may remove
   * the books that vanished. 409 unless the library's latest scan is such a scan.
   */
  async confirmRemovals(libraryId: string): Promise<ScanStatusDto> {
    if (!(await this.repositories.libraries.findById(libraryId))) throw notFound("library");
    const latest = await this.repositories.scans.latestForLibrary(libraryId);
    if (!latest || latest.status !== "failed" || latest.removalsHeld === 0) {
      throw new DomainError("Conflict", "the library's latest scan is not waiting for a confirmation of removals");
    }
    return this.request(libraryId, latest.mode, "manual", true);
  }

  async status(libraryId: string): Promise<ScanStatusDto> {
    if (!(await this.repositories.libraries.findById(libraryId))) throw notFound("library");
    const scan = await this.repositories.scans.latestForLibrary(libraryId);
    await this.thumbnails.countPending(RECENT_COUNT_MS);
    return scan ? this.toDto(scan) : this.idleStatus(libraryId);
  }

  async cancel(libraryId: string): Promise<ScanStatusDto> {
    if (!(await this.repositories.libraries.findById(libraryId))) throw notFound("library");
    const active = await this.repositories.scans.activeForLibrary(libraryId);
    if (!active) throw new DomainError("Conflict", "no scan of this library is pending or running");
    const cancelled = await this.repositories.scans.transition(active.id, "pending", { status: "cancelled", completedAt: new Date() });
    if (cancelled) {
      // The ended scan shows the thumbnail queue: as it is, not as this process (perhaps one that
      // makes no thumbnails, so never counts by itself) last counted it.
      await this.thumbnails.countPending(RECENT_COUNT_MS).catch(() => undefined);
      const dto = this.toDto(cancelled);
      this.events.publish(active.id, "scan.cancelled", dto);
      return dto;
    }
    // Not pending any more: the worker runs it (it marks itself running before leaving pending).
    if (this.running?.scanId === active.id) {
      this.running.controller.abort();
      return this.toDto(active);
    }
    // Run by another process: marking the row cancelled tells its runner, whose lease heartbeat
    // reads it within about a second; it stops the scan and announces the end itself.
    const cancelledElsewhere = await this.repositories.scans.transition(active.id, "running", { status: "cancelled", completedAt: new Date() });
    return this.toDto(cancelledElsewhere ?? active);
  }

  /** A deleted library's running scan stops (its catalogue is gone). */
  libraryRemoved(libraryId: string): void {
    if (this.running?.libraryId === libraryId) this.running.controller.abort();
  }

  libraryChanged(): void {
    // A change applies from the next scan on.
  }

  /**
   * Starts the worker, or tells the running one to look again: a scan queued while the worker
   * is finishing its last lookup must not wait for the next restart.
   */
  private pump(): void {
    if (this.stopped || !this.runsScans) return;
    this.wake = true;
    if (this.worker) return;
    this.worker = this.work()
      .catch((error) => {
        // The database went away between scans (looking up the next one, starting it): a
        // queued scan must still run once it is back, without waiting for a new request.
        // An outage is a warning with its cause (once a minute while it lasts), not a stack.
        const cause = transientCause(error);
        if (!cause) this.log.error("the scan worker stopped on an error; it looks again in a few seconds", { error: error as Error });
        else if (Date.now() - this.lastOutageWarningAt >= OUTAGE_WARNING_INTERVAL_MS) {
          // Once a minute, as HTTP outages are logged: the worker looks again every few seconds.
          this.lastOutageWarningAt = Date.now();
          this.log.warn("the scan worker cannot look for scans; it looks again in a few seconds, less often while this lasts", { cause });
        }
        const pause = cause ? this.lookAgainMs : WORKER_RETRY_MS;
        if (cause) this.lookAgainMs = Math.min(this.lookAgainMs * 2, WORKER_MAX_RETRY_MS);
        this.nextLookAt = Date.now() + pause;
        setTimeout(() => this.pump(), pause).unref();
      })
      .finally(() => {
        this.worker = undefined;
        if (this.wake) this.pump();
      });
  }

  /** The runner's look at the database: scans queued by another process start. */
  private poll(): void {
    if (!this.running && Date.now() >= this.nextLookAt) this.pump();
  }

  private async work(): Promise<void> {
    while (this.wake && !this.stopped) {
      this.wake = false;
      const claim = async () => {
        const claimed = await this.repositories.scans.claimNext(this.instanceId, this.leaseMs);
        // The database answers again: no more backing off.
        this.nextLookAt = 0;
        this.lookAgainMs = WORKER_RETRY_MS;
        return claimed;
      };
      for (let claimed = await claim(); claimed; claimed = this.stopped ? undefined : await claim()) {
        await this.run(claimed.scan, claimed.takenOver, claimed.reclaimed);
      }
    }
  }

  private async run(scan: ScanRecord, takenOver: boolean, reclaimed = false): Promise<void> {
    const library = await this.repositories.libraries.findById(scan.libraryId);
    const log = this.log.child({ scanId: scan.id, libraryId: scan.libraryId });
    if (!library) return;
    if (takenOver && scan.takeovers >= this.retry.takeoverLimit) return this.giveUp(scan, log);
    const controller = new AbortController();
    this.running = { scanId: scan.id, libraryId: library.id, controller };
    this.thumbnails.pause();
    const counters: ScanCounters = { ...ZERO_COUNTERS };
    let leaseLost = false;
    this.heartbeat.hold(scan.id, () => {
      if (controller.signal.aborted) return;
      leaseLost = true;
      controller.abort();
    });
    const scope = this.scopes.get(scan.id);
    this.scopes.delete(scan.id);
    const current = () => this.toDto({ ...scan, ...counters });
    this.events.publish(scan.id, "scan.started", current());
    log.info(takenOver ? "scan taken over: its owner's lease expired" : reclaimed ? OWN_LEASE_EXPIRED.scan : "scan started", {
      mode: scan.mode,
      trigger: scan.trigger,
      owner: this.instanceId,
      ...(scope ? { paths: [...scope] } : {}),
    });

    let persistedAt = Date.now();
    let persisting: Promise<unknown> = Promise.resolve();
    let outcome: ScanOutcome;
    try {
      await this.scanner.scan(
        library,
        scan.mode,
        counters,
        controller.signal,
        {
        progress: () => {
          this.events.progress(scan.id, current());
          // Counters reach the database every few seconds, so scan-status moves during long scans.
          if (Date.now() - persistedAt > 2000) {
            persistedAt = Date.now();
            const snapshot = { ...counters };
            persisting = persisting.then(() => this.repositories.scans.updateHeld(scan.id, this.instanceId, snapshot)).catch(() => undefined);
          }
        },
          bookChanged: (bookId) => this.thumbnails.enqueue(bookId),
        },
        scan.confirmRemovals,
        scope && [...scope],
      );
      outcome = { status: "completed", reason: null };
      for (const work of this.afterCatalogue) {
        await work(library.id).catch((error: unknown) => log.warn("work after the scan failed", { error: error as Error }));
      }
    } catch (error) {
      outcome = controller.signal.aborted ? { status: "cancelled", reason: null } : this.failedOutcome(scan, error);
      if (error instanceof SuspiciousScan) log.warn("scan stopped by the suspicious-scan guard", { reason: outcome.reason });
      else if (outcome.status === "retrying") log.warn("scan failed for a transient cause; it is queued again", { reason: outcome.reason, retryInSeconds: outcome.pauseMs / 1000 });
      else if (outcome.status === "failed") log.error("scan failed", { error: error as Error });
    }
    this.heartbeat.drop(scan.id);
    // Cataloguing is over: thumbnails go on before the final status is published, so that whoever
    // sees the scan end and then waits for its thumbnails finds them queued, not paused.
    this.thumbnails.resume();
    try {
      await this.thumbnails.queueAsked();
      // A progress write still on its way must not land after (and undo) the final counters.
      await persisting;
      if (!(await this.finish(scan, counters, outcome, leaseLost, log))) {
        log.warn("scan stopped: it is not this instance's any more (taken over after this one's lease expired, ended elsewhere, or its library deleted)");
        return;
      }
      log.info(`scan ${outcome.status}`, { ...counters });
      if (outcome.status === "completed" && counters.booksAdded + counters.booksUpdated + counters.booksDeleted + counters.booksMoved > 0) {
        await this.repositories.catalogue.optimize().catch((error) => log.warn("planner statistics not refreshed", { error }));
      }
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Ends failed, without running it, a scan taken over for the `takeoverLimit`th time: the
   * process running it stopped (or stalled past its lease) that many times, and a scan that
   * kills its process, a book that crashes it, would otherwise be taken over forever, taking
   * every instance down in turn. The claim reset its counters; the books catalogued meanwhile stay.
   */
  private async giveUp(scan: ScanRecord, log: Logger): Promise<void> {
    const reason =
      `given up: the process running the scan stopped (or stalled past its lease) ${scan.takeovers} times before it ended ` +
      `(scanner.scan_takeover_limit); a book of the library may crash it, or the processes stalled (a database outage, an overloaded machine): see their logs`;
    log.error("scan given up: the process running it stopped too many times", { takeovers: scan.takeovers, reason });
    await this.finish(scan, { ...ZERO_COUNTERS }, { status: "failed", reason }, false, log);
  }

  /**
   * A failure's outcome: a transient cause queues the scan again while it has retries left
   * (after `backoffMs`, doubling with each retry, at most an hour); anything else fails it.
   */
  private failedOutcome(scan: ScanRecord, error: unknown): ScanOutcome {
    const cause = error instanceof TransientFailure ? error.message : transientCause(error);
    const retries = this.retry.maxAttempts - 1;
    if (!cause || scan.retries >= retries) return { status: "failed", reason: failureReason(error) };
    // The time is added where the scan is shown (toDto): it may move on before the scan runs.
    return { status: "retrying", reason: `${cause}; retry ${scan.retries + 1} of ${retries}`, pauseMs: retryPause(this.retry.backoffMs, scan.retries) };
  }

  /**
   * Records the final state (or the scan queued again), retrying while the database is away (up
   * to `finalWriteBudgetMs`), and announces it: a scan must never stay `running` because its
   * last write failed. If the database stays away past the budget, the row is fixed at the next
   * start. Every write is conditional on this process still owning the scan: a scan that is not
   * ours any more after a lost lease (`leaseLost`: taken over, its library deleted), or that is
   * no longer running to be queued again, is left as it is, unannounced: returns false.
   */
  private async finish(scan: ScanRecord, counters: ScanCounters, outcome: ScanOutcome, leaseLost: boolean, log: Logger): Promise<boolean> {
    // A retry's pause counts from when it is recorded: a write that waited for the database
    // (a full disk) must not queue the scan with a time already past.
    const changesNow = (): Partial<ScanRecord> =>
      outcome.status === "retrying"
        ? { ...counters, failureReason: outcome.reason, retries: scan.retries + 1, runAfter: new Date(Date.now() + outcome.pauseMs) }
        : { ...counters, status: outcome.status, failureReason: outcome.reason, completedAt: new Date() };
    let changes = changesNow();
    const write = () => {
      changes = changesNow();
      return outcome.status === "retrying"
        ? this.repositories.scans.release(scan.id, this.instanceId, changes)
        : this.repositories.scans.updateHeld(scan.id, this.instanceId, changes);
    };
    let finished: ScanRecord | undefined;
    try {
      finished = await retryTransient(
        write,
        new AbortController().signal,
        (cause) => log.warn("recording the scan's final state failed, retrying", { cause }),
        this.finalWriteBudgetMs,
        FINAL_WRITE_MAX_PAUSE_MS,
      );
      if (!finished && (leaseLost || outcome.status === "retrying")) return false;
    } catch (error) {
      log.error("the scan's final state could not be recorded; it is corrected at the next start", { error: error as Error });
    }
    await this.thumbnails.countPending().catch(() => undefined);
    const fallback: ScanRecord = outcome.status === "retrying" ? { ...scan, ...changesNow(), ...RELEASED } : { ...scan, ...changes };
    this.events.publish(scan.id, `scan.${outcome.status}`, this.toDto(finished ?? fallback));
    return true;
  }

  private idleStatus(libraryId: string): ScanStatusDto {
    return {
      scanId: null,
      libraryId,
      mode: null,
      status: "idle",
      trigger: null,
      failureReason: null,
      thumbnailsPending: this.thumbnails.pending,
      requestedAt: null,
      startedAt: null,
      completedAt: null,
      ...ZERO_COUNTERS,
    };
  }

  /**
   * A scan queued again after a transient failure says when it runs again: its own time, or,
   * once that has passed while this process cannot claim it (the database still refuses), the
   * time of this process's next look.
   */
  private shownReason(scan: ScanRecord): string | null {
    if (scan.status !== "pending" || !scan.runAfter || !scan.failureReason) return scan.failureReason;
    const retryAt = Math.max(scan.runAfter.getTime(), this.nextLookAt);
    return `${scan.failureReason} at ${new Date(retryAt).toISOString()}`;
  }

  private toDto(scan: ScanRecord): ScanStatusDto {
    return {
      scanId: scan.id,
      libraryId: scan.libraryId,
      mode: scan.mode,
      status: scan.status,
      trigger: scan.trigger,
      failureReason: this.shownReason(scan),
      filesDiscovered: scan.filesDiscovered,
      filesProcessed: scan.filesProcessed,
      seriesCreated: scan.seriesCreated,
      seriesRenamed: scan.seriesRenamed,
      booksAdded: scan.booksAdded,
      booksUpdated: scan.booksUpdated,
      booksDeleted: scan.booksDeleted,
      booksRestored: scan.booksRestored,
      booksMoved: scan.booksMoved,
      errors: scan.errors,
      pathsSkipped: scan.pathsSkipped,
      linksOutside: scan.linksOutside,
      removalsHeld: scan.removalsHeld,
      thumbnailsPending: this.thumbnails.pending,
      requestedAt: scan.requestedAt.toISOString(),
      startedAt: scan.startedAt?.toISOString() ?? null,
      completedAt: scan.completedAt?.toISOString() ?? null,
    };
  }
}

/** How a scan ended; `retrying`: queued again after a transient failure, to run `pauseMs` after that is recorded. */
type ScanOutcome =
  | { status: "completed" | "failed" | "cancelled"; reason: string | null }
  | { status: "retrying"; reason: string; pauseMs: number };

/** What the scan status says about a failure: the cause an operator can act on. */
function failureReason(error: unknown): string {
  if (error instanceof TransientFailure) {
    return `${error.message}; the scan stopped without removing anything and the next scan completes it`;
  }
  const transient = transientCause(error);
  if (transient) return `${transient}; the scan stopped without removing anything and the next scan completes it`;
  return (error as Error).message;
}
