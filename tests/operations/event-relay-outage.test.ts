/**
 * Event streams across a PostgreSQL outage. The processes of one `serve --workers` relay events
 * over IPC, so a stream held by a web process sees a scan that runs the moment the database is
 * back, once (not again through the database's relay); another instance's relay (LISTEN on a
 * connection of its own) comes back by itself within seconds of the database; processes that
 * went through the outage still stop on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess, type ServerProcess } from "../../scripts/server-process";
import { PASSWORD } from "../helpers/auth";
import { PROJECT_ROOT } from "../helpers/cli";
import { DATABASE_KINDS } from "../helpers/databases";
import { writeInstanceConfig } from "../helpers/instances";
import { makeCbz, tempFolder } from "../helpers/library";
import { startOwnPostgres, type OwnPostgres } from "../helpers/own-postgres";
import { processClient, scanStreamTranscript, socketOwners, waitFor, type ProcessCall } from "../helpers/server-processes";

const STREAMS = 12;

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("event streams across a PostgreSQL outage", () => {
  let pg: OwnPostgres;
  let command: string[];
  let libraryRoot: string;
  const started: ServerProcess[] = [];
  const start = async (...args: string[]) => {
    const server = await startServerProcess([...command, ...args], { env: { PATH: process.env.PATH ?? "" } });
    started.push(server);
    return server;
  };
  let token: string;
  let libraryId: string;

  beforeAll(async () => {
    pg = startOwnPostgres();
    const dir = mkdtempSync(join(tmpdir(), "longbox-relay-outage-"));
    command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", writeInstanceConfig(dir, { config: pg.config })];
    libraryRoot = tempFolder();
    for (let index = 1; index <= 6; index++) await makeCbz(join(libraryRoot, "Series", `Issue ${index}.cbz`), { seed: index + 40_000, pages: 2 });
  }, 60_000);
  afterAll(async () => {
    for (const server of started) {
      server.child.kill("SIGKILL");
      await server.child.exited;
    }
    pg?.destroy();
  }, 30_000);

  /**
   * SIGTERM, and the exit code, or "still running" after 15 s: a LISTEN connection re-opened
   * by the driver during the stop once kept processes that had seen an outage alive.
   */
  const stopped = (server: ServerProcess) => {
    server.child.kill("SIGTERM");
    return Promise.race([server.child.exited, Bun.sleep(15_000).then(() => "still running")]);
  };

  /** Stops the database for `ms`, starts it, and requests a scan through `call` until one is accepted; returns when the database was back. */
  const scanAfterOutage = async (call: ProcessCall, ms: number) => {
    pg.stop();
    await Bun.sleep(ms);
    pg.start();
    const back = performance.now();
    for (let tries = 0; (await call("POST", `/api/v1/libraries/${libraryId}/scan`, token)).status !== 202; tries++) {
      expect(tries).toBeLessThan(500);
      await Bun.sleep(20);
    }
    return back;
  };

  test("serve --workers 2: every stream, on either process, sees the scan run right after the outage, once", async () => {
    const server = await start("--workers", "2");
    const port = Number(new URL(server.url).port);
    await waitFor(() => new Set(socketOwners(port, "listening")).size === 2, "two processes listening on the port");
    const call = processClient(server.url, true);
    expect((await call("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD })).status).toBe(201);
    token = (await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD })).body.token;
    libraryId = (await call("POST", "/api/v1/libraries", token, { name: "relay", path: libraryRoot })).body.id;

    const streams = Array.from({ length: STREAMS }, () => scanStreamTranscript(server.url, token));
    const transcripts = () => streams.map((stream) => stream.transcript());
    await waitFor(() => transcripts().every((text) => text.includes(": connected")), "every stream to connect");
    expect(new Set(socketOwners(port, "established")).size).toBe(2);

    await scanAfterOutage(call, 3000);
    await waitFor(() => transcripts().every((text) => text.includes("event: scan.completed")), "every stream to see the scan complete", 30_000);
    await Promise.all(streams.map((stream) => stream.stop()));
    for (const text of transcripts()) {
      expect(text.match(/event: scan\.started/g)).toHaveLength(1);
      expect(text.match(/event: scan\.completed/g)).toHaveLength(1);
    }
    expect(await stopped(server)).toBe(0);
  }, 90_000);

  test("another instance's stream hears scans again within seconds of the database's return", async () => {
    const a = await start();
    const b = await start("--role", "web");
    const callA = processClient(a.url);
    const stream = scanStreamTranscript(b.url, token);
    await waitFor(() => stream.transcript().includes(": connected"), "the stream on B to connect");

    const back = await scanAfterOutage(callA, 6000);
    // Scans until one reaches B: the ones right after the return may go out before B listens
    // again. The driver's default reconnection delay (growing to 20 s) took 10 s and more here.
    const completions = () => stream.transcript().match(/event: scan\.completed/g)?.length ?? 0;
    while (completions() === 0 && performance.now() - back < 15_000) {
      await Bun.sleep(250);
      await callA("POST", `/api/v1/libraries/${libraryId}/scan`, token);
    }
    await stream.stop();
    expect(completions()).toBeGreaterThan(0);
    expect(performance.now() - back).toBeLessThan(5000);
    expect(await stopped(b)).toBe(0);
    expect(await stopped(a)).toBe(0);
  }, 90_000);
});
