/**
 * Scheduled scans: one cron job per library with automatic scanning enabled, kept in step with
 * library changes (no restart needed), and the scan-on-start requests at boot. A scheduled scan
 * that finds one already pending or running is skipped, not queued twice.
 *
 * With several processes running jobs, each fire of a schedule is run by one of them
 * (./fire-once.ts), and a library's scan-on-start runs once for the processes that start within
 * the same minute (a deployment starting its instances together).
 *
 * Only the process that runs the jobs keeps schedules (`start()`); a library changed through
 * another process (role web, `--workers`) reaches it through the LibraryRefresher
 * (src/library/library-refresher.ts), within its refresh interval.
 */
import type { CronJob } from "cron";
import type { LibraryRecord, Repositories } from "../db";
import { DomainError } from "../errors";
import type { LibraryObserver } from "../library/libraries";
import type { ScanService } from "../library/scans";
import type { Logger } from "../logging/logger";
import { cronJobOnceAcrossInstances, firstToClaim } from "./fire-once";

export class ScanSchedules implements LibraryObserver {
  private readonly jobs = new Map<string, { schedule: string; job: CronJob }>();
  private started = false;

  constructor(
    private readonly repositories: Repositories,
    private readonly scans: ScanService,
    private readonly log: Logger,
  ) {}

  /** Requests the scans marked scan-on-start; the LibraryRefresher then announces every library to schedule. */
  async start(): Promise<void> {
    this.started = true;
    for (const library of await this.repositories.libraries.list()) {
      if (library.scanningConfig.scanOnStart && (await firstToClaim(this.repositories, this.log, `scan-on-start:${library.id}`, startMinute()))) {
        await this.trigger(library.id, "startup");
      }
    }
  }

  stop(): void {
    this.started = false;
    for (const { job } of this.jobs.values()) void job.stop();
    this.jobs.clear();
  }

  /** Library ids with an active schedule, and their cron expressions (metrics, tests). */
  scheduled(): Map<string, string> {
    return new Map([...this.jobs].map(([id, { schedule }]) => [id, schedule]));
  }

  libraryChanged(library: LibraryRecord): void {
    if (!this.started) return;
    const { enabled, cronSchedule } = library.scanningConfig;
    const current = this.jobs.get(library.id);
    if (current && current.schedule === cronSchedule && enabled) return;
    this.libraryRemoved(library.id);
    if (!enabled || !cronSchedule) return;
    const job = cronJobOnceAcrossInstances(this.repositories, this.log, {
      name: `scan-schedule:${library.id}`,
      cronTime: cronSchedule,
      timeZone: "UTC",
      run: () => this.trigger(library.id, "schedule"),
    });
    this.jobs.set(library.id, { schedule: cronSchedule, job });
  }

  libraryRemoved(libraryId: string): void {
    const current = this.jobs.get(libraryId);
    if (!current) return;
    void current.job.stop();
    this.jobs.delete(libraryId);
  }

  private async trigger(libraryId: string, trigger: "schedule" | "startup"): Promise<void> {
    try {
      await this.scans.request(libraryId, undefined, trigger);
    } catch (error) {
      if (error instanceof DomainError && error.kind === "Conflict") {
        this.log.info("scheduled scan skipped: one is already pending or running", { libraryId });
      } else {
        this.log.error("scheduled scan could not be requested", { libraryId, error: error as Error });
      }
    }
  }
}

/** The current minute: instances started within it share one scan-on-start per library. */
function startMinute(): Date {
  return new Date(Math.floor(Date.now() / 60_000) * 60_000);
}
