/**
 * Background jobs on cron schedules (the `cron` package). Each fire runs in one process across
 * all processes running jobs (./fire-once.ts). A failing run is logged and does not stop the
 * schedule. `runNow` runs a job immediately in this process (tests, operations).
 */
import type { CronJob } from "cron";
import type { Repositories } from "../db";
import type { Logger } from "../logging/logger";
import { cronJobOnceAcrossInstances } from "./fire-once";

export interface ScheduledJob {
  name: string;
  /** A cron expression (minute hour day month weekday), in the server's time zone. */
  schedule: string;
  run(): Promise<void>;
}

export class Scheduler {
  private readonly cronJobs: CronJob[] = [];

  constructor(
    private readonly jobs: ScheduledJob[],
    private readonly repositories: Repositories,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const job of this.jobs) {
      this.cronJobs.push(cronJobOnceAcrossInstances(this.repositories, this.log, { name: job.name, cronTime: job.schedule, run: () => this.execute(job) }));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.cronJobs.splice(0).map((cronJob) => cronJob.stop()));
  }

  async runNow(name: string): Promise<void> {
    const job = this.jobs.find((candidate) => candidate.name === name);
    if (!job) throw new Error(`no scheduled job named ${name}`);
    await this.execute(job);
  }

  private async execute(job: ScheduledJob): Promise<void> {
    try {
      await job.run();
    } catch (error) {
      this.log.error("scheduled job failed", { job: job.name, error: error as Error });
    }
  }
}
