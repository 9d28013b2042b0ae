/**
 * SQLite dumps (./dumps.ts): `VACUUM INTO` writes a consistent, compact copy through a
 * read-only connection of its own, in a worker thread (./sqlite-copy-worker.ts), so a running
 * server (WAL mode) goes on reading and writing, and the process that copies goes on serving.
 * A restore replaces the file by renaming a checked copy over it (see replace for its log).
 */
import { Database as SqliteClient } from "bun:sqlite";
import { chmod, rename, rm, stat } from "node:fs/promises";
import type { DatabaseDumps } from "./dumps";
import type { CopyReply, CopyRequest } from "./sqlite-copy-worker";

export class SqliteDumps implements DatabaseDumps {
  readonly kind = "sqlite";
  readonly fileName = "database.sqlite";

  constructor(private readonly file: string) {}

  async dump(target: string): Promise<{ schemaVersion: number }> {
    if (!(await exists(this.file))) throw new Error(`there is no SQLite database at ${this.file}`);
    await copyInWorker(this.file, target);
    await chmod(target, 0o600);
    return { schemaVersion: schemaVersionOf(target) };
  }

  async check(file: string): Promise<void> {
    let client: SqliteClient | undefined;
    try {
      client = new SqliteClient(file, { readonly: true });
      const rows = client.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
      if (rows.length !== 1 || rows[0]!.integrity_check !== "ok") {
        throw new Error(rows.map((row) => row.integrity_check).slice(0, 3).join("; "));
      }
    } catch (error) {
      throw new Error(`the SQLite database in the backup is damaged: ${(error as Error).message}`, { cause: error });
    } finally {
      client?.close();
    }
  }

  /**
   * In WAL mode every connection holds a shared lock on the file while open, so an exclusive
   * lock is refused exactly while another process (a running server, a backup) has it open.
   */
  async inUse(): Promise<string | undefined> {
    if (!(await exists(this.file))) return undefined;
    let client: SqliteClient | undefined;
    try {
      client = new SqliteClient(this.file, { readwrite: true });
      client.exec("PRAGMA busy_timeout = 0");
      client.exec("PRAGMA locking_mode = EXCLUSIVE");
      client.exec("BEGIN EXCLUSIVE");
      client.exec("COMMIT");
      return undefined;
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY") || /locked/i.test((error as Error).message)) {
        return `the SQLite database ${this.file} is open in another process (is a Longbox server running on it?)`;
      }
      return undefined; // not a database we can open: nobody serves it, and it is being replaced
    } finally {
      client?.close();
    }
  }

  async replace(file: string, { schemaVersion }: { schemaVersion: number; force: boolean }): Promise<void> {
    const found = schemaVersionOf(file);
    if (found !== schemaVersion) throw new Error(`the backup's database has schema version ${found}, its manifest says ${schemaVersion}`);
    await chmod(file, 0o600);
    // The write-ahead log and index of the database being replaced (a crashed server's, or a
    // running one's under --force) belong to it: left at its name, they would be replayed into
    // the restored file. They were deleted before the rename, so a crash or a failed rename in
    // between left the old database without the commits its log held. Now the log is first
    // folded into the old file (when it opens), then moved aside, not deleted, so until the
    // rename the old database is whole (its log under another name at worst); and removed only
    // once the restored file is in place. A process still holding them keeps its own copies.
    foldWriteAheadLog(this.file);
    const aside = `${this.file}.replaced-${process.pid}-${Date.now()}`;
    for (const suffix of SIDE_FILES) await renameIfPresent(`${this.file}${suffix}`, `${aside}${suffix}`);
    try {
      await rename(file, this.file);
    } catch (error) {
      // Not swapped: the old database gets its files back, as it was.
      for (const suffix of SIDE_FILES) await renameIfPresent(`${aside}${suffix}`, `${this.file}${suffix}`);
      throw error;
    }
    for (const suffix of SIDE_FILES) await rm(`${aside}${suffix}`, { force: true });
  }
}

/** The files SQLite keeps beside a database: its write-ahead log, its index, a rollback journal. */
const SIDE_FILES = ["-wal", "-shm", "-journal"];

/**
 * Checkpoints the database's write-ahead log into the file itself and empties it, as far as
 * readers allow; a database that is missing or will not open (damaged: why it is being
 * restored) is left as it is.
 */
function foldWriteAheadLog(file: string): void {
  let client: SqliteClient | undefined;
  try {
    client = new SqliteClient(file, { readwrite: true });
    client.exec("PRAGMA busy_timeout = 0");
    client.query("PRAGMA wal_checkpoint(TRUNCATE)").all();
  } catch {
    // Nothing to fold, or nothing that can be: the log is moved aside whole.
  } finally {
    client?.close();
  }
}

async function renameIfPresent(from: string, to: string): Promise<void> {
  await rename(from, to).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** VACUUM INTO `target`, in a worker thread of its own so that this thread goes on serving. */
function copyInWorker(source: string, target: string): Promise<void> {
  const worker = new Worker(new URL("./sqlite-copy-worker.ts", import.meta.url));
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<CopyReply>) => {
      const reply = event.data;
      if (reply.ok) resolve();
      else reject(Object.assign(new Error(`the SQLite database could not be copied: ${reply.message}`), { code: reply.code }));
    };
    worker.onerror = (event) => reject(new Error(`the SQLite copy stopped: ${event.message}`));
    worker.postMessage({ source, target } satisfies CopyRequest);
  }).finally(() => worker.terminate());
}

/** Migrations applied to the database in `file` (0 when it has none). */
function schemaVersionOf(file: string): number {
  const client = new SqliteClient(file, { readonly: true });
  try {
    const table = client.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
    if (!table) return 0;
    return Number((client.query("SELECT COUNT(*) AS n FROM __drizzle_migrations").get() as { n: number }).n);
  } finally {
    client.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
