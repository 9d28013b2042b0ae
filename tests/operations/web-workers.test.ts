/**
 * `longbox serve --workers 2` on SQLite: two processes share the port (the kernel spreads the
 * connections), they answer alike, the scan requested through the port runs once (in the
 * process that runs the jobs), every event stream sees it whichever process holds it (the admin
 * page's also its thumbnails counted down to none, which the web process hears over IPC),
 * revocations and counted failures made through one process hold in the other within 100 ms,
 * and SIGTERM stops them all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess, type ServerProcess } from "../../scripts/server-process";
import { PASSWORD } from "../helpers/auth";
import { PROJECT_ROOT } from "../helpers/cli";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { expectRevocationEverywhere, expectThrottleEverywhere } from "../helpers/revocation";
import { makeCbz, tempFolder } from "../helpers/library";
import { TEST_AUTH } from "../helpers/server";
import {
  ADMIN_SCAN_STREAM,
  freePort,
  killSupervisorOutright,
  processClient,
  socketOwners,
  streamsOnBothProcesses,
  thumbnailsCountedToNone,
  waitFor,
  type ProcessCall,
} from "../helpers/server-processes";

const BOOKS = 60;
const STREAMS = 12;

describe("serve --workers 2 [sqlite]", () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let port: number;
  let libraryRoot: string;

  let call: ProcessCall;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "longbox-workers-"));
    database = await createTestDatabase("sqlite", join(dir, "data"));
    const configPath = join(dir, "config.yaml");
    writeFileSync(
      configPath,
      JSON.stringify({
        application: { host: "127.0.0.1", port: 0, data_dir: join(dir, "data") },
        database: database.config,
        auth: { ...TEST_AUTH, login_max_failures: 3 },
      }),
    );
    libraryRoot = tempFolder();
    for (let index = 1; index <= BOOKS; index++) {
      await makeCbz(join(libraryRoot, `Series ${index % 6}`, `Issue ${index}.cbz`), { seed: index + 20_000, pages: 2 });
    }
    server = await startServerProcess([process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath, "--workers", "2"], {
      env: { PATH: process.env.PATH ?? "" },
    });
    port = Number(new URL(server.url).port);
    // A connection per request, so that consecutive requests reach both processes.
    call = processClient(server.url, true);
    await waitFor(() => new Set(socketOwners(port, "listening")).size === 2, "two processes listening on the port");
  }, 60_000);
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await database?.drop();
  });

  test("the scan runs once, every stream on either process sees it, answers agree", async () => {
    expect(server.output()).toContain("role=all");
    await waitFor(() => server.output().includes("role=web"), "the web process to log its start");
    expect((await call("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD })).status).toBe(201);
    const { body: session } = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    const token = session.token as string;
    const { body: library } = await call("POST", "/api/v1/libraries", token, { name: "workers", path: libraryRoot });

    // The admin page's streams first, so that both processes are seen to hold some of them.
    const adminStreams = await streamsOnBothProcesses(server.url, token, STREAMS, ADMIN_SCAN_STREAM);
    const { transcripts, stop: stopStreams } = await streamsOnBothProcesses(server.url, token, STREAMS);

    const { status, body: requested } = await call("POST", `/api/v1/libraries/${library.id}/scan`, token);
    expect(status).toBe(202);
    await waitFor(() => transcripts().every((text) => text.includes("event: scan.completed")), "every stream to see the scan complete", 60_000);
    for (const text of transcripts()) {
      expect(text.match(/event: scan\.started/g)).toHaveLength(1);
      expect(text.match(/event: scan\.completed/g)).toHaveLength(1);
      expect(text).toContain(requested.scanId);
    }
    await stopStreams();
    await waitFor(() => adminStreams.transcripts().every(thumbnailsCountedToNone), "every admin stream to see the thumbnails all made", 60_000);
    await adminStreams.stop();
    // One process ran it: one "scan started" line in the shared log.
    expect(server.output().match(/scan started/g)).toHaveLength(1);

    const answers = new Set<string>();
    for (let request = 0; request < 16; request++) {
      const { status, body } = await call("GET", `/api/v1/books?libraryId=${library.id}&pageSize=100&sort=title`, token);
      expect(status).toBe(200);
      expect(body.total).toBe(BOOKS);
      answers.add(JSON.stringify(body));
    }
    expect(answers.size).toBe(1);
    const scanStatus = await call("GET", `/api/v1/libraries/${library.id}/scan-status`, token);
    expect(scanStatus.body).toMatchObject({ scanId: requested.scanId, status: "completed", booksAdded: BOOKS });
  }, 120_000);

  test("a deleted API key and a password reset are refused by every process within 100 ms", async () => {
    const { body: session } = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    // The changes on one kept-alive connection (one process), the checks on fresh ones (both).
    await expectRevocationEverywhere(processClient(server.url), call, session.token, "revoked-reader");
  }, 60_000);

  test("failures counted in one process refuse a remembered HTTP Basic password in every process within 100 ms", async () => {
    const { body: session } = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    await expectThrottleEverywhere(processClient(server.url), call, session.token, "throttled-reader", 3);
  }, 60_000);

  test("failed sign-ins count in every process: the limit holds whichever process answers", async () => {
    const attempt = () => call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: "not the password" });
    // Spread over both processes (a connection each); in-memory counting would let through
    // the attempts that reach the process which saw fewer than 3.
    for (let failure = 0; failure < 3; failure++) expect((await attempt()).status).toBe(401);
    for (let blocked = 0; blocked < 8; blocked++) expect((await attempt()).status).toBe(429);
  }, 60_000);

  test("SIGTERM on the first process stops every process", async () => {
    const pids = new Set(socketOwners(port, "listening"));
    expect(pids.size).toBe(2);
    server.child.kill("SIGTERM");
    expect(await server.child.exited).toBe(0);
    expect(socketOwners(port, "listening")).toEqual([]);
  }, 60_000);
});

/**
 * However the supervisor was started (by a Bun program with its output ignored or piped and never
 * read, with the caller's whole environment; by a shell writing to a file) and whenever it is
 * killed outright (its web process still starting, or both serving), the web process stops and
 * the port is freed.
 */
describe("web processes end by themselves when the first process is killed outright", () => {
  const ways = [
    { name: "Bun.spawn, output ignored, killed while its web process starts", stdio: "ignore", shell: false, early: true },
    { name: "Bun.spawn, output piped and never read, killed while its web process starts", stdio: "pipe", shell: false, early: true },
    { name: "Bun.spawn, output piped and never read, killed once both serve", stdio: "pipe", shell: false, early: false },
    { name: "a shell writing to a file, killed while its web process starts", stdio: "ignore", shell: true, early: true },
    { name: "a shell writing to a file, killed once both serve", stdio: "ignore", shell: true, early: false },
  ] as const;
  for (const way of ways) {
    test(way.name, async () => {
      const dir = mkdtempSync(join(tmpdir(), "longbox-workers-kill-"));
      const port = freePort();
      const configPath = join(dir, "config.yaml");
      writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", port, data_dir: join(dir, "data") }, auth: TEST_AUTH }));
      const serve = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath, "--workers", "2"];
      const command = way.shell ? ["sh", "-c", `exec "$@" >"${join(dir, "out.log")}" 2>&1`, "sh", ...serve] : serve;
      await killSupervisorOutright(Bun.spawn(command, { env: process.env, stdin: "ignore", stdout: way.stdio, stderr: way.stdio }), port, way.early);
    }, 60_000);
  }
});
