/** Every background job of the service, built from the services; src/server.ts schedules them. */
import type { Services } from "../services";
import { pruneRefreshTokensJob } from "./prune-refresh-tokens";
import { Scheduler } from "./scheduler";

export function createScheduler(services: Services): Scheduler {
  return new Scheduler([pruneRefreshTokensJob(services.refreshTokens, services.log)], services.repositories, services.log);
}

export { PRUNE_REFRESH_TOKENS } from "./prune-refresh-tokens";
export type { Scheduler } from "./scheduler";
