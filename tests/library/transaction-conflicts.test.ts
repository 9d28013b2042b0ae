/**
 * PostgreSQL ends a transaction that conflicts with a concurrent one: it breaks a deadlock by
 * rolling one of the transactions back (SQLSTATE 40P01), and a repeatable-read transaction
 * cannot write a row changed since its snapshot (40001). Neither says anything about the book
 * or the database: the scanner retries the file's work (retryTransient, as src/library/scanner.ts
 * wraps each file), and the same write then succeeds. Both errors are real: raised by the local
 * PostgreSQL through the project's own Database (drizzle over postgres.js), against a second
 * connection that stands for the other scan worker. SQLite has one writer at a time: its
 * conflicts are SQLITE_BUSY, already transient.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { loadConfig } from "../../src/config/load";
import { unavailability } from "../../src/db";
import { openDatabase, type Database } from "../../src/db/database";
import { errorChain } from "../../src/errors";
import { retryTransient } from "../../src/library/transient";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../helpers/databases";
import { takeThenWait } from "../helpers/deadlock";

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("transaction conflicts between scan workers are retried [postgres]", () => {
  let target: TestDatabase;
  /** The scan worker's database, as the server opens it. */
  let database: Database;
  /** The other scan worker: a connection of its own. */
  let other: postgres.Sql;
  /** Watches the other worker's connection (which is busy in its transaction meanwhile). */
  let monitor: postgres.Sql;

  beforeAll(async () => {
    target = await createTestDatabase("postgres", "unused");
    const url = (target.target as { postgresUrl: string }).postgresUrl;
    const env = { SERVICE_DATABASE__TYPE: "postgres", SERVICE_DATABASE__POSTGRES__URL: url };
    database = openDatabase(loadConfig({ path: "/nonexistent/config.yaml", env, defaultsIfMissing: true }).config, ":memory:");
    other = postgres(url, { max: 1, onnotice: () => undefined });
    monitor = postgres(url, { max: 1, onnotice: () => undefined });
    await other`CREATE TABLE probe (id integer PRIMARY KEY, n integer NOT NULL)`;
  });
  afterAll(async () => {
    await database?.close();
    await other?.end();
    await monitor?.end();
    await target?.drop();
  });
  beforeEach(async () => {
    await other`DELETE FROM probe`;
    await other`INSERT INTO probe (id, n) VALUES (1, 0), (2, 0)`;
  });

  /** Runs `write` as the scanner runs a file's work; returns what it saw. */
  async function asTheScannerRetries(write: () => Promise<void>) {
    const retries: { cause: string; attempt: number }[] = [];
    const errors: unknown[] = [];
    const recording = async () => {
      try {
        await write();
      } catch (error) {
        errors.push(error);
        throw error;
      }
    };
    await retryTransient(recording, new AbortController().signal, (cause, attempt) => void retries.push({ cause, attempt }), 30_000);
    return { retries, errors };
  }

  /**
   * The write failed once, with `code` (a real PostgreSQL error, down drizzle's cause chain),
   * was retried for `cause` and succeeded the second time; and that failure was no outage:
   * no "database unavailable" is logged for it, and the health check does not count it as the
   * database refusing writes.
   */
  function expectRetriedOnce(seen: { retries: unknown[]; errors: unknown[] }, attempts: number, code: string, cause: string) {
    expect(seen.errors).toHaveLength(1);
    expect(codesOf(seen.errors[0])).toContain(code);
    expect(seen.retries).toEqual([{ cause, attempt: 1 }]);
    expect(attempts).toBe(2);
    expect(unavailability(seen.errors[0])).toBeUndefined();
    expect(database.transactionOutcomes().refused).toBe(0);
  }

  const rows = async () => [...(await monitor`SELECT id, n FROM probe ORDER BY id`)];

  /** The SQLSTATE codes along an error's cause chain (drizzle wraps the driver's error). */
  const codesOf = (error: unknown) => [...errorChain(error)].flatMap((current) => ("code" in current ? [String(current.code)] : []));

  test("a deadlock: PostgreSQL rolls the scan worker's transaction back, its retry succeeds", async () => {
    let attempts = 0;
    let otherWorker: Promise<unknown> | undefined;
    /**
     * The other worker takes row 2, then waits for row 1, which the scan worker holds: the cycle
     * is whole when the scan worker waits for row 2, and the scan worker's side is rolled back.
     */
    const otherWaitsForRow1 = async () => {
      const otherSide = takeThenWait(other, monitor, (tx) => tx`UPDATE probe SET n = n + 1 WHERE id = 2`, (tx) => tx`UPDATE probe SET n = n + 1 WHERE id = 1`);
      otherWorker = otherSide.done;
      await otherSide.waiting();
    };
    const write = () =>
      database.transaction(async () => {
        attempts++;
        await database.handle().execute(sql`UPDATE probe SET n = n + 1 WHERE id = 1`);
        if (attempts === 1) await otherWaitsForRow1();
        // Waits for the other worker, which waits for this one.
        await database.handle().execute(sql`UPDATE probe SET n = n + 1 WHERE id = 2`);
      });

    const seen = await asTheScannerRetries(write);
    expectRetriedOnce(seen, attempts, "40P01", "a database transaction deadlocked with a concurrent one and was rolled back (PostgreSQL 40P01)");
    await otherWorker; // committed: it was not the one rolled back
    // Each worker's write counted once: the rolled-back attempt left nothing.
    expect(await rows()).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  }, 30_000);

  test("a serialization failure: a row changed since the transaction's snapshot, its retry succeeds", async () => {
    let attempts = 0;
    const write = () =>
      database.transaction(async () => {
        attempts++;
        await database.handle().execute(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
        await database.handle().execute(sql`SELECT n FROM probe WHERE id = 1`); // takes the snapshot
        // The other worker changes the row and commits meanwhile.
        if (attempts === 1) await other`UPDATE probe SET n = n + 1 WHERE id = 1`;
        await database.handle().execute(sql`UPDATE probe SET n = n + 1 WHERE id = 1`);
      });

    const seen = await asTheScannerRetries(write);
    expectRetriedOnce(seen, attempts, "40001", "a database transaction conflicted with a concurrent one and was rolled back (PostgreSQL 40001)");
    // The other worker's change and this one's, once.
    expect(await rows()).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 0 },
    ]);
  }, 30_000);
});
