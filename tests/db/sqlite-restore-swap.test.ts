/**
 * A SQLite restore swaps the restored file in (src/db/sqlite-dump.ts, SqliteDumps.replace, what
 * `longbox restore` runs) without a window in which the old database lacks its write-ahead log.
 * The old database here has committed rows only in its log (its writer is still open, as a
 * crashed server leaves it), and the final rename fails (the restored file is on another file
 * system: EXDEV), standing in for a crash between the two steps. Before, the log was deleted
 * first: the old file alone had lost those rows. SQLite only (PostgreSQL swaps databases).
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteDumps } from "../../src/db/sqlite-dump";

const folder = mkdtempSync(join(tmpdir(), "longbox-swap-"));
// tmpfs, another file system than the data folder's: a rename from there fails.
const otherFileSystem = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/longbox-swap-") : undefined;
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  if (otherFileSystem) rmSync(otherFileSystem, { recursive: true, force: true });
});

const rowsOf = (file: string) => {
  const client = new Database(file, { readonly: true });
  try {
    return (client.query("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n;
  } finally {
    client.close();
  }
};

test.skipIf(!otherFileSystem)("a swap that fails midway leaves the old database with every committed row", async () => {
  const file = join(folder, "longbox.db");
  const writer = new Database(file, { create: true });
  writer.exec("PRAGMA journal_mode = WAL");
  writer.exec("PRAGMA wal_autocheckpoint = 0");
  writer.exec("CREATE TABLE t (n INTEGER)");
  writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  for (let n = 0; n < 50; n++) writer.exec(`INSERT INTO t VALUES (${n})`);
  expect(existsSync(`${file}-wal`)).toBe(true);

  const staged = join(otherFileSystem!, "restored.sqlite");
  new Database(staged, { create: true }).close();
  await expect(new SqliteDumps(file).replace(staged, { schemaVersion: 0, force: true })).rejects.toThrow();
  // The old file by itself, as a server would find it after a crash at that point (copied
  // before the writer closes: closing would checkpoint the log it still holds).
  const alone = join(folder, "alone.db");
  copyFileSync(file, alone);
  writer.close();
  expect(rowsOf(alone)).toBe(50);
  // Not swapped: the old database is as it was, its log back in place, nothing left aside.
  expect(rowsOf(file)).toBe(50);
  expect(readdirSync(folder).some((name) => name.startsWith("longbox.db.replaced-"))).toBe(false);
});

test("a swap puts the restored file in place and leaves no log of the old one beside it", async () => {
  const file = join(folder, "second.db");
  const old = new Database(file, { create: true });
  old.exec("PRAGMA journal_mode = WAL");
  old.exec("CREATE TABLE t (n INTEGER)");
  old.exec("INSERT INTO t VALUES (1), (2)");
  const staged = join(folder, "second-restored.sqlite");
  const restored = new Database(staged, { create: true });
  restored.exec("CREATE TABLE t (n INTEGER)");
  restored.exec("INSERT INTO t VALUES (1), (2), (3)");
  restored.close();
  await new SqliteDumps(file).replace(staged, { schemaVersion: 0, force: true });
  old.close();
  expect(readdirSync(folder).filter((name) => name.startsWith("second")).sort()).toEqual(["second.db"]);
  expect(rowsOf(file)).toBe(3);
});
