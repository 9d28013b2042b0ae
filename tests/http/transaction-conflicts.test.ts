/**
 * A request whose transaction PostgreSQL rolls back for a concurrent one (here a deadlock,
 * SQLSTATE 40P01) answers 503 `ServiceUnavailable` with `Retry-After` and says to send it again;
 * the log has a warning, not an "unhandled error" with a stack. The same request sent again
 * succeeds. The deadlock is real: an admin renames a series (PATCH /api/v1/series/{id}: the
 * series row, then its books' order keys) while a transaction of the test's own holds the book
 * and waits for the series row. SQLite has one writer at a time: no deadlock to answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import postgres from "postgres";
import { adminSession, bearer } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { booksOf, createLibrary, makeCbz, scanToCompletion, tempFolder } from "../helpers/library";
import { startTestServer, type TestServer } from "../helpers/server";
import { takeThenWait } from "../helpers/deadlock";
import { waitFor } from "../helpers/server-processes";

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("a request rolled back by a transaction conflict [postgres]", () => {
  let server: TestServer;
  let admin: Record<string, string>;
  let seriesId: string;
  let bookId: string;
  /** Holds the series row until the request waits for it, so that the other transaction queues behind the request. */
  let holder: postgres.Sql;
  /** The concurrent transaction: takes the book, then waits for the series row the request holds. */
  let other: postgres.Sql;
  /** Watches who waits for a lock (the other two are busy in their transactions meanwhile). */
  let monitor: postgres.Sql;

  beforeAll(async () => {
    server = await startTestServer("postgres");
    const { token } = await adminSession(server);
    admin = bearer(token);
    const root = tempFolder();
    await makeCbz(join(root, "Contended", "Contended 1.cbz"), { pages: 1 });
    const library = await createLibrary(server, admin, { name: "contended", path: root });
    await scanToCompletion(server, token, library.id);
    const [book] = await booksOf(server, admin, library.id);
    bookId = book!.id;
    seriesId = book!.seriesId;
    const url = server.server.services.config.database.postgres.url;
    const connect = () => postgres(url, { max: 1, onnotice: () => undefined });
    holder = connect();
    other = connect();
    monitor = connect();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([holder?.end({ timeout: 1 }), other?.end({ timeout: 1 }), monitor?.end({ timeout: 1 })]);
    await server?.stop();
  });

  /** The connections of the test database that wait for a lock, and what they run. */
  const lockWaiters = async () =>
    [...(await monitor`SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)] as {
      pid: number;
      query: string;
    }[];

  test("a deadlock answers 503 with Retry-After, is logged as a warning, and the request sent again succeeds", async () => {
    const rename = () => server.json("PATCH", `/api/v1/series/${seriesId}`, { name: "Renamed" }, admin);
    const { promise: held, resolve: hold } = Promise.withResolvers<void>();
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const holding = holder.begin(async (tx) => {
      await tx`UPDATE series SET summary = summary WHERE id = ${seriesId}`;
      hold();
      await released;
    });
    let answer: ReturnType<typeof rename>;
    let otherSide: ReturnType<typeof takeThenWait>;
    try {
      await held;
      answer = rename();
      // The request's row-locking read of the series (src/db/repositories/row-lock.ts).
      await waitFor(async () => (await lockWaiters()).some((row) => /for no key update/i.test(row.query)), "the request to wait for the series row");
      // Takes the book, then queues behind the request for the series row: once the request has
      // the series and waits for the book, the request's side is the one rolled back.
      otherSide = takeThenWait(other, monitor, (tx) => tx`UPDATE books SET title = title WHERE id = ${bookId}`, (tx) => tx`UPDATE series SET summary = summary WHERE id = ${seriesId}`);
      await otherSide.waiting();
    } finally {
      // Never left holding the series row (a failure above would leave the request and afterAll waiting).
      release();
    }
    await holding;

    // The request gets the series row, renames it, then waits for the book: the cycle is whole.
    const { status, headers, body } = await answer;
    expect({ status, body }).toEqual({
      status: 503,
      body: {
        error: "ServiceUnavailable",
        message: "the request's database transaction deadlocked with a concurrent one and was rolled back; send it again",
      },
    });
    expect(headers.get("retry-after")).toBe("1");
    await otherSide.done; // not the one rolled back
    expect(server.logs.filter((line) => line.includes("database transaction conflict (deadlock)") && line.includes(" WARN "))).toHaveLength(1);
    expect(server.logs.filter((line) => line.includes("unhandled error"))).toEqual([]);

    const again = await rename();
    expect(again.status).toBe(200);
    expect(again.body.name).toBe("Renamed");
  }, 60_000);
});
