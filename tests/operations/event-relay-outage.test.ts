/**
 * Event streams across a PostgreSQL outage. The processes of one `serve --workers` relay events
 * over IPC, so a stream held by a web process sees a scan that runs the moment the database is
 * back; once their LISTEN connections are back too, a scan still reaches every stream once (the
 * database's relay skips the messages of its own `serve`). Another instance's relay (LISTEN on a
 * connection of its own) comes back by itself within seconds of the database; processes that
 * went through the outage still stop on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startServerProcess, type ServerProcess } from "../../scripts/server-process";
import { adminSession, bearer } from "../helpers/auth";
import { PROJECT_ROOT } from "../helpers/cli";
import { DATABASE_KINDS } from "../helpers/databases";
import { writeInstanceConfig } from "../helpers/instances";
import { createLibrary, makeCbz, tempFolder } from "../helpers/library";
import { startOwnPostgres, type OwnPostgres } from "../helpers/own-postgres";
import { jsonClient } from "../helpers/server";
import { processClient, scanStreamTranscript, socketOwners, streamsOnBothProcesses, waitFor, type ProcessCall } from "../helpers/server-processes";

const STREAMS = 12;
/** What postgres.js's default reconnection delay (growing to 20 s) took here: 10 s and more. */
const RELISTEN_WITHIN_MS = 8000;

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("event streams across a PostgreSQL outage", () => {
  let pg: OwnPostgres;
  let dir: string;
  let command: string[];
  let libraryRoot: string;
  const started: ServerProcess[] = [];
  const start = async (...args: string[]) => {
    const server = await startServerProcess([...command, ...args], { env: { PATH: process.env.PATH ?? "" } });
    started.push(server);
    return server;
  };
  /** The database's sessions that listen for Longbox's events (one per process once it listens). */
  let monitor: postgres.Sql;
  const listening = async () => Number((await monitor`SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'listen "longbox_events"'`)[0]!.n);
  /** The admin's token and the library, made through whichever server a test has first. */
  let session: { token: string; libraryId: string } | undefined;
  const signIn = async (url: string) => {
    if (!session) {
      // No connection left open after it: the streams test counts the processes holding connections.
      const client = jsonClient(url, true);
      const { token } = await adminSession(client);
      session = { token, libraryId: (await createLibrary(client, bearer(token), { name: "relay", path: libraryRoot })).id };
    }
    return session;
  };

  beforeAll(async () => {
    pg = startOwnPostgres();
    monitor = postgres((pg.config.postgres as { url: string }).url, { max: 1, onnotice: () => undefined });
    dir = mkdtempSync(join(tmpdir(), "longbox-relay-outage-"));
    command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", writeInstanceConfig(dir, { config: pg.config })];
    libraryRoot = tempFolder();
    for (let index = 1; index <= 6; index++) await makeCbz(join(libraryRoot, "Series", `Issue ${index}.cbz`), { seed: index + 40_000, pages: 2 });
  }, 60_000);
  afterAll(async () => {
    for (const server of started) {
      server.child.kill("SIGKILL");
      await server.child.exited;
    }
    await monitor?.end({ timeout: 1 });
    pg?.destroy();
    for (const folder of [dir, libraryRoot]) if (folder) rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  /**
   * SIGTERM, and the exit code, or "still running" after 15 s: a LISTEN connection re-opened
   * by the driver during the stop once kept processes that had seen an outage alive.
   */
  const stopped = (server: ServerProcess) => {
    server.child.kill("SIGTERM");
    return Promise.race([server.child.exited, Bun.sleep(15_000).then(() => "still running")]);
  };

  const requestScan = async (call: ProcessCall) => (await call("POST", `/api/v1/libraries/${session!.libraryId}/scan`, session!.token)).status;

  /** Stops the database for `ms`, starts it, and requests a scan through `call` until one is accepted; returns when the database was back. */
  const scanAfterOutage = async (call: ProcessCall, ms: number) => {
    pg.stop();
    await Bun.sleep(ms);
    pg.start();
    const back = performance.now();
    for (let tries = 0; (await requestScan(call)) !== 202; tries++) {
      expect(tries).toBeLessThan(500);
      await Bun.sleep(20);
    }
    return back;
  };

  const eventsOf = (text: string, name: string) => text.match(new RegExp(`event: ${name.replace(".", "\\.")}\\b`, "g"))?.length ?? 0;

  test("serve --workers 2: every stream, on either process, sees the scan run right after the outage, and every later scan once", async () => {
    const server = await start("--workers", "2");
    const port = Number(new URL(server.url).port);
    await waitFor(() => new Set(socketOwners(port, "listening")).size === 2, "two processes listening on the port");
    const call = processClient(server.url, true);
    const { token } = await signIn(server.url);
    await waitFor(async () => (await listening()) === 2, "both processes to listen for events");
    const { transcripts, stop } = await streamsOnBothProcesses(server.url, token, STREAMS);

    // Run before the processes listen to the database again: only IPC can carry it to the web process.
    await scanAfterOutage(call, 3000);
    await waitFor(() => transcripts().every((text) => eventsOf(text, "scan.completed") === 1), "every stream to see the scan complete", 30_000);
    // Once both listen again, the database relays the next scan to them as well: their own
    // group's messages must be dropped, or the web process's streams would see it twice.
    await waitFor(async () => (await listening()) === 2, "both processes to listen again", RELISTEN_WITHIN_MS);
    expect(await requestScan(call)).toBe(202);
    await waitFor(() => transcripts().every((text) => eventsOf(text, "scan.completed") === 2), "every stream to see the second scan complete", 30_000);
    await Bun.sleep(500); // a duplicate relayed through the database would have arrived by now
    await stop();
    for (const text of transcripts()) expect([eventsOf(text, "scan.started"), eventsOf(text, "scan.completed")]).toEqual([2, 2]);
    expect(await stopped(server)).toBe(0);
  }, 90_000);

  test("another instance listens again within seconds of the database's return, and its streams hear scans", async () => {
    const a = await start();
    const b = await start("--role", "web");
    const callA = processClient(a.url);
    const { token } = await signIn(a.url);
    await waitFor(async () => (await listening()) === 2, "both instances to listen for events");
    const stream = scanStreamTranscript(b.url, token);
    await waitFor(() => stream.transcript().includes(": connected"), "the stream on B to connect");

    const back = await scanAfterOutage(callA, 6000);
    await waitFor(async () => (await listening()) === 2, "both instances to listen again", RELISTEN_WITHIN_MS + 30_000);
    expect(performance.now() - back).toBeLessThan(RELISTEN_WITHIN_MS);
    await waitFor(async () => (await requestScan(callA)) === 202, "a scan to be accepted");
    await waitFor(() => eventsOf(stream.transcript(), "scan.completed") > 0, "B's stream to see a scan complete");
    await stream.stop();
    expect(await stopped(b)).toBe(0);
    expect(await stopped(a)).toBe(0);
  }, 120_000);
});
