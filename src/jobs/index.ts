/** Every background job of the service, built from the services; src/server.ts schedules them. */
import type { Services } from "../services";
import { pruneRefreshTokensJob } from "./prune-refresh-tokens";
import { scheduledBackupJob } from "./scheduled-backup";
import { Scheduler } from "./scheduler";

export function createScheduler(services: Services): Scheduler {
  const jobs = [pruneRefreshTokensJob(services.refreshTokens, services.log)];
  const { schedule } = services.config.backup;
  if (schedule) jobs.push(scheduledBackupJob(services.backups, schedule, services.log));
  return new Scheduler(jobs, services.repositories, services.log);
}

export { PRUNE_REFRESH_TOKENS } from "./prune-refresh-tokens";
export type { Scheduler } from "./scheduler";
