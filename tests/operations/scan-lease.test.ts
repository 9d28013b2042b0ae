/**
 * Scans are leased jobs on PostgreSQL: two instances with jobs on one database, the one running
 * a long scan is killed (SIGKILL, no clean stop), and the other takes the scan over once the
 * lease expires and completes it. A live instance's running scan is left alone by an instance
 * that starts meanwhile. A scan whose runner is killed every time is taken over at most
 * scanner.scan_takeover_limit times, then ends failed. On both databases, a scan cancelled through a web-role process stops in
 * the worker running it at its next look (a read about every second, whatever the lease), while
 * the lease itself is renewed only every third of its length.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { ServerProcess } from "../../scripts/server-process";
import { adminSession, bearer } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { comicsFolder, createLibrary } from "../helpers/library";
import { jsonClient } from "../helpers/server";
import { processClient, waitFor } from "../helpers/server-processes";
import { queryDatabase } from "../helpers/sql";

const BOOKS = 300;

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("a scan whose instance dies is taken over [postgres]", () => {
  let instances: Instances;
  let libraryRoot: string;
  const start = () => instances.start();

  beforeAll(async () => {
    instances = await instancesOnOneDatabase("postgres", { scanner: { concurrency: 1, job_lease_seconds: 1.5 } });
    libraryRoot = await comicsFolder(BOOKS, { pages: 3, seed: 50_000, series: 20 });
  }, 120_000);
  afterAll(async () => instances?.stop());

  test("SIGKILL the instance running the scan: the other one finishes it after the lease expires", async () => {
    const a = await start();
    const b = await start();
    const client = jsonClient(a.url);
    const { token } = await adminSession(client);
    const library = await createLibrary(client, bearer(token), { name: "leased", path: libraryRoot });
    const { status, body: requested } = await client.json("POST", `/api/v1/libraries/${library.id}/scan`, undefined, bearer(token));
    expect(status).toBe(202);

    // Whichever instance claimed it (both poll the queue), it is running with a lease.
    await waitFor(() => [a, b].some((server) => server.output().includes("scan started")), "an instance to start the scan");
    const owner = a.output().includes("scan started") ? a : b;
    const survivor = owner === a ? b : a;
    const [row] = await queryDatabase(instances.database.target, `SELECT status, owner, lease_expires_at FROM scans WHERE id = '${requested.scanId}'`);
    expect(row).toMatchObject({ status: "running" });
    expect(row!.owner).toContain(`:${owner.child.pid}:`);
    expect(row!.lease_expires_at).not.toBeNull();

    const catalogued = async () => (await processClient(survivor.url)("GET", `/api/v1/books?libraryId=${library.id}&pageSize=1`, token)).body.total as number;
    await waitFor(async () => (await catalogued()) >= 10, "the scan to catalogue some books", 60_000);
    expect(await catalogued()).toBeLessThan(BOOKS);
    // A third instance starting while the scan is leased must not fail it (only scans whose lease
    // has expired count as abandoned at start). Started before the kill: a start takes longer
    // than the 1.5 s lease on a loaded machine, and after it the scan would rightly count as abandoned.
    const late = await start();
    expect(late.output()).not.toContain("marked interrupted scans as failed");
    owner.child.kill("SIGKILL");
    await owner.child.exited;
    const killedAt = Date.now();

    const survivorCall = processClient(survivor.url);
    await waitFor(() => [survivor, late].some((server) => server.output().includes("scan taken over")), "the scan to be taken over", 30_000);
    expect(Date.now() - killedAt).toBeGreaterThan(1000); // not before the lease expired
    const taker = survivor.output().includes("scan taken over") ? survivor : late;
    let final: any;
    await waitFor(
      async () => {
        final = (await survivorCall("GET", `/api/v1/libraries/${library.id}/scan-status`, token)).body;
        return ["completed", "failed", "cancelled"].includes(final.status);
      },
      "the taken-over scan to end",
      120_000,
    );
    expect(final).toMatchObject({ scanId: requested.scanId, status: "completed", booksDeleted: 0 });
    expect((await catalogued())).toBe(BOOKS);
    const [ended] = await queryDatabase(instances.database.target, `SELECT owner FROM scans WHERE id = '${requested.scanId}'`);
    expect(ended!.owner).toContain(`:${taker.child.pid}:`);
    // Taken over once, by one instance.
    const takeovers = (survivor.output() + late.output()).match(/scan taken over/g) ?? [];
    expect(takeovers).toHaveLength(1);
  }, 240_000);
});

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("a scan that stops every process running it [postgres]", () => {
  const LIMIT = 2;
  let instances: Instances;
  let libraryRoot: string;

  beforeAll(async () => {
    // A lease of 3 s: three processes, PostgreSQL and the scan share two cores, and a runner that
    // stalled past a shorter one would be taken over without being killed (one takeover too many).
    instances = await instancesOnOneDatabase("postgres", { scanner: { concurrency: 1, job_lease_seconds: 3, scan_takeover_limit: LIMIT } });
    libraryRoot = await comicsFolder(BOOKS, { pages: 3, seed: 70_000, series: 20 });
  }, 120_000);
  afterAll(async () => instances?.stop());

  test("its runner SIGKILLed each time, it is taken over scanner.scan_takeover_limit times, then ends failed saying why", async () => {
    // Every instance starts before the scan: one that starts after a kill would find the lease
    // expired and fail the scan as abandoned (a start can take longer than the lease), which
    // is not what is tested here. One runs it, and the next one takes it over after each kill.
    const alive: ServerProcess[] = [];
    for (let index = 0; index <= LIMIT; index++) alive.push(await instances.start());
    const client = jsonClient(alive[0]!.url);
    const { token } = await adminSession(client);
    const library = await createLibrary(client, bearer(token), { name: "poison", path: libraryRoot });
    const { status, body: requested } = await client.json("POST", `/api/v1/libraries/${library.id}/scan`, undefined, bearer(token));
    expect(status).toBe(202);
    const logging = async (line: string) => {
      await waitFor(() => alive.some((server) => server.output().includes(line)), `an instance to log "${line}"`, 30_000);
      return alive.find((server) => server.output().includes(line))!;
    };
    const takeoversInRow = async () =>
      (await queryDatabase(instances.database.target, `SELECT takeovers FROM scans WHERE id = '${requested.scanId}'`))[0]!.takeovers;

    // The poison: whoever runs the scan dies at once, as a book that crashes the process would make it.
    let runner = await logging("scan started");
    for (let takeover = 1; takeover < LIMIT; takeover++) {
      runner.child.kill("SIGKILL");
      await runner.child.exited;
      alive.splice(alive.indexOf(runner), 1);
      runner = await logging("scan taken over");
      expect(Number(await takeoversInRow())).toBe(takeover);
    }
    runner.child.kill("SIGKILL");
    await runner.child.exited;
    alive.splice(alive.indexOf(runner), 1);

    // The last survivor takes it over for the LIMITth time and ends it instead of running it.
    const last = await logging("scan given up");
    expect(last.output()).toMatch(new RegExp(`ERROR scan given up: the process running it stopped too many times .*takeovers=${LIMIT}`));
    expect(last.output()).not.toContain("scan taken over");
    const reason = `given up: the process running the scan stopped (or stalled past its lease) ${LIMIT} times before it ended (scanner.scan_takeover_limit); a book of the library may crash it, or the processes stalled (a database outage, an overloaded machine): see their logs`;
    let final: any;
    await waitFor(
      async () => {
        final = (await processClient(last.url)("GET", `/api/v1/libraries/${library.id}/scan-status`, token)).body;
        return final.status !== "running";
      },
      "the scan to end",
      30_000,
    );
    expect(final).toMatchObject({ scanId: requested.scanId, status: "failed", failureReason: reason });
    const [row] = await queryDatabase(instances.database.target, `SELECT status, takeovers, owner FROM scans WHERE id = '${requested.scanId}'`);
    expect(row).toMatchObject({ status: "failed" });
    expect(Number(row!.takeovers)).toBe(LIMIT);
    expect(row!.owner).toContain(`:${last.child.pid}:`);
    // Given up, not run: the survivor lives on, and runs the next scan of the library.
    expect(last.child.exitCode).toBeNull();
    expect((await processClient(last.url)("POST", `/api/v1/libraries/${library.id}/scan`, token)).status).toBe(202);
  }, 240_000);
});

const CANCELLED_BOOKS = 10_000;
/**
 * Many small books, made once for both databases: SQLite catalogues 300 to 700 a second, and
 * the scan must outlast the lease reads below and still be running for the cancellation (2,000
 * did not, here).
 */
let cancelledLibrary: Promise<string> | undefined;
afterAll(async () => {
  if (cancelledLibrary) rmSync(await cancelledLibrary, { recursive: true, force: true });
});

for (const kind of DATABASE_KINDS) {
  describe(`a scan cancelled through another process [${kind}]`, () => {
    let instances: Instances;
    let libraryRoot: string;

    beforeAll(async () => {
      // The default lease (30 s): a renewal every third of it alone would see the cancellation after 10 s.
      instances = await instancesOnOneDatabase(kind, { scanner: { concurrency: 1 } });
      libraryRoot = await (cancelledLibrary ??= comicsFolder(CANCELLED_BOOKS, { pages: 1, seed: 60_000, series: 20 }));
    }, 120_000);
    afterAll(async () => instances?.stop());

    test("the worker running it stops it within seconds, without renewing its lease every second, and records where it stopped", async () => {
      const web = await instances.start("--role", "web");
      const worker = await instances.start("--role", "worker");
      const client = jsonClient(web.url);
      const admin = bearer((await adminSession(client)).token);
      const library = await createLibrary(client, admin, { name: "cancelled", path: libraryRoot });
      const requested = await client.json("POST", `/api/v1/libraries/${library.id}/scan`, undefined, admin);
      expect(requested.status).toBe(202);
      const catalogued = async () => (await client.json("GET", `/api/v1/books?libraryId=${library.id}&pageSize=1`, undefined, admin)).body.total as number;
      await waitFor(async () => (await catalogued()) >= 5, "the scan to catalogue some books", 60_000);

      // The lease (30 s) is renewed every 10 s, not at every look for a cancellation: over 2.4 s
      // it moves once at most, and then by about 10 s (a renewal every second or two would move
      // it at each read, by that much); and it is renewed at all (always 20 s or more ahead).
      const leaseExpiries = new Set<number>();
      for (let read = 0; read < 3; read++) {
        if (read > 0) await Bun.sleep(1200);
        const readAt = Date.now();
        const [lease] = await queryDatabase(instances.database.target, `SELECT status, lease_expires_at FROM scans WHERE id = '${requested.body.scanId}'`);
        expect(lease).toMatchObject({ status: "running" });
        const expiresAt = new Date(lease!.lease_expires_at as string | number | Date).getTime();
        expect(expiresAt - readAt).toBeGreaterThan(15_000);
        leaseExpiries.add(expiresAt);
      }
      expect(leaseExpiries.size).toBeLessThanOrEqual(2);
      const [first, second] = [...leaseExpiries].sort((a, b) => a - b);
      if (second !== undefined) expect(second - first!).toBeGreaterThan(8000);

      const cancelled = await client.json("POST", `/api/v1/libraries/${library.id}/scan/cancel`, undefined, admin);
      expect(cancelled.status).toBe(202);
      const cancelledAt = Date.now();
      await waitFor(() => worker.output().includes("scan cancelled"), "the worker to stop the scan", 30_000);
      expect(Date.now() - cancelledAt).toBeLessThan(5000);
      expect(worker.output()).not.toContain("scan completed");
      // The runner still owned the scan: it wrote its counters with the cancellation.
      const [row] = await queryDatabase(instances.database.target, `SELECT status, files_processed, owner FROM scans WHERE id = '${requested.body.scanId}'`);
      expect(row).toMatchObject({ status: "cancelled" });
      expect(Number(row!.files_processed)).toBeGreaterThan(0);
      expect(Number(row!.files_processed)).toBeLessThan(CANCELLED_BOOKS);
      expect(row!.owner).toContain(`:${worker.child.pid}:`);
      expect(await catalogued()).toBeLessThan(CANCELLED_BOOKS);
    }, 180_000);
  });
}
