/**
 * Two instances (two `longbox serve` processes on different ports) on one PostgreSQL database:
 * a scan requested through A runs once and its events reach a stream held by B (LISTEN/NOTIFY),
 * and failed sign-ins counted through A hold on B.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess, type ServerProcess } from "../../scripts/server-process";
import { PASSWORD } from "../helpers/auth";
import { PROJECT_ROOT } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../helpers/databases";
import { makeCbz, tempFolder } from "../helpers/library";
import { TEST_AUTH } from "../helpers/server";

const BOOKS = 40;

async function waitFor(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const requester = (server: ServerProcess) => async (method: string, path: string, token?: string, body?: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as any };
};

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("two instances on one PostgreSQL database", () => {
  let database: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let libraryRoot: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "longbox-instances-"));
    database = await createTestDatabase("postgres", join(dir, "data"));
    const configPath = join(dir, "config.yaml");
    writeFileSync(
      configPath,
      JSON.stringify({
        application: { host: "127.0.0.1", port: 0, workers: 1, data_dir: join(dir, "data") },
        database: database.config,
        auth: { ...TEST_AUTH, login_max_failures: 3 },
      }),
    );
    libraryRoot = tempFolder();
    for (let index = 1; index <= BOOKS; index++) {
      await makeCbz(join(libraryRoot, `Series ${index % 4}`, `Issue ${index}.cbz`), { seed: index + 30_000, pages: 2 });
    }
    const command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath];
    a = await startServerProcess(command, { env: { PATH: process.env.PATH ?? "" } });
    b = await startServerProcess(command, { env: { PATH: process.env.PATH ?? "" } });
  }, 60_000);
  afterAll(async () => {
    for (const server of [a, b]) {
      server?.child.kill("SIGTERM");
      await server?.child.exited;
    }
    await database?.drop();
  });

  test("a scan requested through A runs once; streams on A and B both see it start and complete", async () => {
    expect(a.url).not.toBe(b.url);
    const callA = requester(a);
    const callB = requester(b);
    expect((await callA("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD })).status).toBe(201);
    const { body: session } = await callB("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    const token = session.token as string;
    const { body: library } = await callA("POST", "/api/v1/libraries", token, { name: "shared", path: libraryRoot });

    // A stream on each instance: whichever one runs the scan, the other's stream needs the relay.
    const transcripts = ["", ""];
    const controller = new AbortController();
    const streams = [a, b].map(async (server, index) => {
      const response = await fetch(`${server.url}/api/v1/scans/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      try {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) transcripts[index] += decoder.decode(chunk.value);
      } catch {
        // Aborted at the end.
      }
    });
    await waitFor(() => transcripts.every((text) => text.includes(": connected")), "both streams to connect");

    const { status, body: requested } = await callA("POST", `/api/v1/libraries/${library.id}/scan`, token);
    expect(status).toBe(202);
    await waitFor(() => transcripts.every((text) => text.includes("event: scan.completed")), "both streams to see the scan complete", 60_000);
    controller.abort();
    await Promise.all(streams);
    for (const transcript of transcripts) {
      expect(transcript.match(/event: scan\.started/g)).toHaveLength(1);
      expect(transcript.match(/event: scan\.completed/g)).toHaveLength(1);
      expect(transcript).toContain(requested.scanId);
    }
    const runs = (a.output() + b.output()).match(/scan started/g) ?? [];
    expect(runs).toHaveLength(1);
    const status_ = await callB("GET", `/api/v1/libraries/${library.id}/scan-status`, token);
    expect(status_.body).toMatchObject({ scanId: requested.scanId, status: "completed", booksAdded: BOOKS });
  }, 90_000);

  test("failed sign-ins counted through A hold on B", async () => {
    const attempt = (server: ServerProcess) =>
      requester(server)("POST", "/api/v1/auth/login", undefined, { username: "admin", password: "not the password" });
    for (let failure = 0; failure < 3; failure++) expect((await attempt(a)).status).toBe(401);
    expect((await attempt(b)).status).toBe(429);
    expect((await attempt(a)).status).toBe(429);
  }, 30_000);
});
