/**
 * SQLite dumps (./dumps.ts): `VACUUM INTO` writes a consistent, compact copy through a
 * read-only connection of its own, in a worker thread (./sqlite-copy-worker.ts), so a running
 * server (WAL mode) goes on reading and writing, and the process that copies goes on serving.
 * A restore replaces the file by renaming a checked copy over it.
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
    // running one's under --force) belong to it: opened with the new file they would be
    // replayed into it. A process still holding them keeps its unlinked copies.
    for (const suffix of ["-wal", "-shm", "-journal"]) await rm(`${this.file}${suffix}`, { force: true });
    await rename(file, this.file);
  }
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
