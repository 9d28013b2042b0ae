/** The daily job of the refresh-token state table: expired tokens (active or used) are pruned. */
import type { RefreshTokens } from "../auth/refresh-tokens";
import type { Logger } from "../logging/logger";
import type { ScheduledJob } from "./scheduler";

export const PRUNE_REFRESH_TOKENS = "prune-refresh-tokens";

export function pruneRefreshTokensJob(refreshTokens: RefreshTokens, log: Logger): ScheduledJob {
  return {
    name: PRUNE_REFRESH_TOKENS,
    schedule: "17 3 * * *",
    async run() {
      const pruned = await refreshTokens.pruneExpired();
      log.info("expired refresh tokens pruned", { pruned });
    },
  };
}
