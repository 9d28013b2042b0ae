/**
 * What an installation remembers outside its database: that it has had its first admin. The
 * catalogue alone cannot say whether it is new: an empty SQLite file (truncated by a crash or a
 * bad copy), a missing one, or a PostgreSQL database without Longbox's tables look exactly like
 * a first start, which would open the first-admin setup to whoever connects first. So once an
 * admin exists, a small file in the data folder records it (written at setup, by `user create`,
 * and at any start that finds users), and from then on a catalogue without users is a damaged
 * installation: the start is refused with what to restore, unless a fresh start is asked for
 * (`--start-fresh` or `database.start_fresh`), which forgets the record. A first start that
 * stopped before the first admin existed left no record, so it starts normally.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "../config/paths";
import type { Config } from "../config/schema";
import type { Logger } from "../logging/logger";

/** The name of the record in the data folder. */
export const INSTALLATION_FILE = "installation.json";

interface InstallationRecordContent {
  /** When the record was first written (the first admin existed by then). */
  firstAdminBy: string;
  database: Config["database"]["type"];
}

/** The catalogue has no users, but the installation had its first admin: refuse to start. */
export class DamagedInstallationError extends Error {}

export class InstallationRecord {
  private readonly file: string;

  constructor(
    private readonly paths: Pick<DataPaths, "dataDir" | "sqliteFile">,
    private readonly config: Config,
  ) {
    this.file = join(paths.dataDir, INSTALLATION_FILE);
  }

  /** The record, or undefined before the first admin (or after a fresh start). */
  read(): InstallationRecordContent | undefined {
    if (!existsSync(this.file)) return undefined;
    try {
      return JSON.parse(readFileSync(this.file, "utf8")) as InstallationRecordContent;
    } catch {
      // Unreadable or half-written: it was written, so the first admin existed.
      return { firstAdminBy: "an unknown date", database: this.config.database.type };
    }
  }

  /** Records that the first admin exists (once; later calls keep the first date). */
  recordFirstAdmin(): void {
    if (existsSync(this.file)) return;
    mkdirSync(this.paths.dataDir, { recursive: true });
    const content: InstallationRecordContent = { firstAdminBy: new Date().toISOString(), database: this.config.database.type };
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(content)}\n`);
    renameSync(temporary, this.file);
  }

  /** A fresh start was asked for: the installation has no first admin any more. */
  forget(): void {
    rmSync(this.file, { force: true });
  }

  /** A SQLite catalogue that is missing or holds no byte: checked before opening it creates one. */
  sqliteFileEmpty(): boolean {
    if (this.config.database.type !== "sqlite") return false;
    try {
      return statSync(this.paths.sqliteFile).size === 0;
    } catch {
      return true;
    }
  }

  /** The refusal: what was found, what to restore, how to start fresh on purpose. */
  damaged(found: string): DamagedInstallationError {
    const record = this.read();
    const where =
      this.config.database.type === "sqlite"
        ? `restore the SQLite file ${this.paths.sqliteFile} from a backup (with the server stopped)`
        : "restore the PostgreSQL database from a backup (pg_restore), or point database.postgres at the right database";
    return new DamagedInstallationError(
      `the database is ${found}, but this installation already had its first admin (recorded in ${this.file} at ${record?.firstAdminBy ?? "an unknown date"}): ` +
        `the catalogue was lost or damaged, so the server does not start (it would open the first-admin setup to anyone). ` +
        `To recover, ${where}. To start over with an empty catalogue on purpose, start once with --start-fresh (or database.start_fresh: true).`,
    );
  }
}

/** Records the first admin (at setup, or a start that finds users); a data folder that refuses only costs a warning. */
export function recordFirstAdmin(installation: InstallationRecord, log: Logger): void {
  try {
    installation.recordFirstAdmin();
  } catch (error) {
    log.warn("the data folder could not record that the first admin exists; the next start tries again", { error: error as Error });
  }
}
