/**
 * The database side of backups (src/operations/backups.ts) and restores
 * (src/operations/restore.ts): a consistent copy of the live database in one file, the checks
 * of such a file, and the replacement of the configured database by one, whole or not at all.
 * SQLite copies with VACUUM INTO (./sqlite-dump.ts); PostgreSQL with pg_dump and pg_restore
 * of at least the server's major version (./postgres-dump.ts). A dump is restored only into a
 * database of its own kind.
 */
import type { Config } from "../config/schema";
import type { Dialect } from "./database";
import { PostgresDumps } from "./postgres-dump";
import { SqliteDumps } from "./sqlite-dump";

export interface DatabaseDumps {
  readonly kind: Dialect;
  /** The dump's name inside a backup archive. */
  readonly fileName: string;
  /**
   * Writes a consistent copy of the configured database to `file` (which must not exist) while
   * the server may be running and writing; resolves with the copy's schema version.
   */
  dump(file: string): Promise<{ schemaVersion: number }>;
  /** Throws (with the reason) when `file` is no readable dump of this kind. */
  check(file: string): Promise<void>;
  /**
   * Why the configured database looks in use by a running server (another process has the
   * SQLite file open; other sessions are connected to the PostgreSQL database), or undefined.
   */
  inUse(): Promise<string | undefined>;
  /**
   * Replaces the configured database by the dump in `file` (checked), which must hold
   * `schemaVersion`: the dump is restored aside first and swapped in only once complete, so
   * a failure leaves the database as it was. `force`: even while it is in use.
   */
  replace(file: string, options: { schemaVersion: number; force: boolean }): Promise<void>;
}

export function databaseDumps(config: Config, sqliteFile: string): DatabaseDumps {
  return config.database.type === "postgres" ? new PostgresDumps(config.database.postgres) : new SqliteDumps(sqliteFile);
}

export { knownSchemaVersion } from "./migrate";
