/** The scheduled backup (backup.schedule): a backup into backup.dir, keeping the newest backup.keep there. */
import type { Logger } from "../logging/logger";
import type { BackupService } from "../operations/backups";
import type { ScheduledJob } from "./scheduler";

const SCHEDULED_BACKUP = "scheduled-backup";

export function scheduledBackupJob(backups: BackupService, schedule: string, log: Logger): ScheduledJob {
  return {
    name: SCHEDULED_BACKUP,
    schedule,
    run: async () => {
      const made = await backups.createScheduled();
      log.info("scheduled backup written", { file: made.path, bytes: made.bytes });
    },
  };
}
