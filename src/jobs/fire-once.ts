/**
 * Cron jobs that fire once across every process and instance running jobs on one database: each
 * fire is claimed by inserting (job, scheduled time) into `job_fires`; the process whose insert
 * wins runs it, the others skip it. Keyed by the time the fire was scheduled for (not the time
 * the timer went off), so processes whose timers fire a little apart agree on the key; their
 * clocks must agree to within the schedule's period (NTP).
 */
import { CronJob } from "cron";
import type { Repositories } from "../db";
import type { Logger } from "../logging/logger";

export interface OnceAcrossInstances {
  name: string;
  /** Five fields (minute hour day month weekday), or six with seconds first. */
  cronTime: string;
  timeZone?: string;
  run(): Promise<void>;
}

export function cronJobOnceAcrossInstances(repositories: Repositories, log: Logger, { name, cronTime, timeZone, run }: OnceAcrossInstances): CronJob {
  let scheduledFor: Date;
  const job = CronJob.from({
    cronTime,
    timeZone,
    waitForCompletion: true,
    onTick: async () => {
      const fireAt = scheduledFor;
      scheduledFor = job.nextDate().toJSDate();
      if (await firstToClaim(repositories, log, name, fireAt)) await run();
    },
  });
  scheduledFor = job.nextDate().toJSDate();
  job.start();
  return job;
}

/** True when this process is the first to claim `job` at `fireAt`; false (and logged) otherwise. */
export async function firstToClaim(repositories: Repositories, log: Logger, job: string, fireAt: Date): Promise<boolean> {
  try {
    if (await repositories.jobFires.claim(job, fireAt)) return true;
    log.debug("scheduled job skipped: another process runs this fire", { job, fireAt: fireAt.toISOString() });
  } catch (error) {
    log.error("scheduled job skipped: its fire could not be claimed", { job, error: error as Error });
  }
  return false;
}
