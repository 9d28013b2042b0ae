/**
 * A PostgreSQL server that goes away (issue #11, items 2, 4 and 5), on a cluster of the test's
 * own: requests answer 503 with Retry-After within seconds and work again when it returns,
 * without a restart; a short outage during a scan is retried and the scan completes with every
 * book; a long one stops the scan and queues it again with backoff (issue #18: before, it ended
 * `failed` and waited for the next scan): its new state is written once the database is back,
 * `scan.retrying` says why, and the same scan then completes; transient failures are never
 * counted or listed as book errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, createLibrary, makeCbz, tempFolder, waitForScan } from "../helpers/library";
import { startOwnPostgres, type OwnPostgres } from "../helpers/own-postgres";
import { openEventStream } from "../helpers/sse";
import { startTestServer, type TestServer } from "../helpers/server";

// Enough that a deep scan still runs when the database stops (a fast one could finish first).
const BOOKS = 480; // booksOf reads one page of 500

describe("PostgreSQL outage", () => {
  let pg: OwnPostgres;
  let server: TestServer;
  let admin: Record<string, string>;
  let libraryId: string;

  beforeAll(async () => {
    pg = startOwnPostgres();
    server = await startTestServer("postgres", { database: pg.config, scanner: { concurrency: 1, transient_retry_seconds: 5, retry_attempts: 2, retry_backoff_seconds: 1 } });
    admin = bearer((await adminSession(server)).token);
    const root = tempFolder();
    for (let index = 1; index <= BOOKS; index++) {
      await makeCbz(join(root, `Series ${index % 10}`, `Book ${String(index).padStart(3, "0")}.cbz`), { seed: 500 + index, pages: 2 });
    }
    libraryId = (await createLibrary(server, admin, { name: "outage", path: root })).id;
  }, 60_000);

  afterAll(async () => {
    try {
      pg.start();
      await server?.stop();
    } finally {
      pg?.destroy();
    }
  }, 30_000);

  const timed = async (path: string, init?: RequestInit) => {
    const started = performance.now();
    const response = await server.fetch(path, init);
    return { response, ms: performance.now() - started };
  };

  test("while the database is down, requests answer 503 with Retry-After quickly; they recover by themselves", async () => {
    pg.stop();
    try {
      for (const [path, init] of [
        ["/api/v1/books", { headers: admin }],
        ["/api/v1/series", { headers: admin }],
        ["/opds/v1.2/catalog", { headers: admin }],
        ["/api/v1/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body: '{"username":"admin","password":"x"}' }],
      ] as const) {
        const { response, ms } = await timed(path, init);
        expect({ path, status: response.status }).toEqual({ path, status: 503 });
        expect(response.headers.get("retry-after")).toBe("5");
        const body = await response.json();
        expect(body.error).toBe("ServiceUnavailable");
        expect(body.message).toContain("database is unreachable");
        expect(ms).toBeLessThan(4000);
      }
      expect((await server.fetch("/health")).status).toBe(503);
      const outageLines = server.logs.filter((line) => line.includes("database unavailable (unreachable)"));
      expect(outageLines).toHaveLength(1);
      // The scan worker looks for scans every second meanwhile: one warning with the cause, no stack.
      await Bun.sleep(3500);
      expect(server.logs.filter((line) => line.includes("the scan worker cannot look for scans") && line.includes("the database is unreachable"))).toHaveLength(1);
      expect(server.logs.filter((line) => line.includes("the scan worker stopped on an error"))).toEqual([]);
    } finally {
      pg.start();
    }
    expect((await server.fetch("/api/v1/books", { headers: admin })).status).toBe(200);
    expect((await server.fetch("/health")).status).toBe(200);
  }, 30_000);

  test("a short outage during a scan is retried: the scan completes with every book and no errors", async () => {
    const started = await server.json("POST", `/api/v1/libraries/${libraryId}/scan`, undefined, admin);
    expect(started.status).toBe(202);
    await Bun.sleep(400);
    pg.stop();
    await Bun.sleep(500);
    pg.start();
    const status = await waitForScan(server, admin, libraryId, started.body.scanId, 90_000);
    expect(server.logs.some((line) => line.includes("transient failure, retrying"))).toBe(true);
    expect(status).toMatchObject({ status: "completed", booksAdded: BOOKS, errors: 0, pathsSkipped: 0 });
    expect(await booksOf(server, admin, libraryId)).toHaveLength(BOOKS);
    expect((await server.json("GET", "/api/v1/books/errors", undefined, admin)).body.totalBooksWithErrors).toBe(0);
  }, 120_000);

  test("a long outage stops the scan, which is queued again with backoff and then completes", async () => {
    const events = openEventStream(server, admin);
    await events.opened;
    const started = await server.json("POST", `/api/v1/libraries/${libraryId}/scan?mode=deep`, undefined, admin);
    expect(started.status).toBe(202);
    // Stopped as soon as the scan runs: a fixed wait let a fast deep scan finish first on an idle machine.
    const running = () => events.events.some((event) => event.event === "scan.started" && event.data.scanId === started.body.scanId);
    for (let waited = 0; waited < 5000 && !running(); waited += 10) await Bun.sleep(10);
    expect(running()).toBe(true);
    pg.stop();
    // Longer than scanner.transient_retry_seconds (5 s): the scan gives up while the database is away.
    await Bun.sleep(8000);
    pg.start();
    const status = await waitForScan(server, admin, libraryId, started.body.scanId, 90_000);
    expect(status).toMatchObject({ scanId: started.body.scanId, status: "completed", errors: 0, booksDeleted: 0 });
    for (let waited = 0; waited < 5000 && !events.events.some((event) => event.event === "scan.completed"); waited += 50) await Bun.sleep(50);
    events.close();
    const ofThisScan = events.events.filter((event) => event.data.scanId === started.body.scanId).map((event) => event.event);
    expect(ofThisScan).not.toContain("scan.failed");
    const retrying = events.events.find((event) => event.event === "scan.retrying" && event.data.scanId === started.body.scanId);
    expect(retrying?.data).toMatchObject({ status: "pending" });
    expect(retrying?.data.failureReason).toContain("the database is unreachable; retry 1 of 2 at ");
    // Started again after the retry was queued: two starts, one completion.
    expect(ofThisScan.filter((name) => name === "scan.started")).toHaveLength(2);
    expect(ofThisScan.at(-1)).toBe("scan.completed");
    expect(server.logs.some((line) => line.includes("scan failed for a transient cause; it is queued again"))).toBe(true);
    // Nothing was lost or marked broken, and the library is free for the next scan.
    expect(await booksOf(server, admin, libraryId)).toHaveLength(BOOKS);
    expect((await server.json("GET", "/api/v1/books/errors", undefined, admin)).body.totalBooksWithErrors).toBe(0);
    const next = await server.json("POST", `/api/v1/libraries/${libraryId}/scan`, undefined, admin);
    expect(next.status).toBe(202);
    expect(await waitForScan(server, admin, libraryId, next.body.scanId, 60_000)).toMatchObject({ status: "completed", errors: 0 });
  }, 150_000);
});
