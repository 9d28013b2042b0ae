/**
 * Starts a real Longbox server on a free port for a test file, on the database kind asked for,
 * with its own temp data folder and configuration file. `forEachDatabase` repeats a suite on
 * every kind in DATABASE_KINDS.
 */
import { afterAll, beforeAll, describe } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deepMerge, loadConfig } from "../../src/config/load";
import { createLogger } from "../../src/logging/logger";
import { startServer, type RunningServer } from "../../src/server";
import { checkAnswer } from "./openapi-answers";
import { createTestDatabase, DATABASE_KINDS, type DatabaseKind, type TestDatabase } from "./databases";

export interface TestServer {
  kind: DatabaseKind;
  url: string;
  dir: string;
  configPath: string;
  server: RunningServer;
  /** Every line the server logged. */
  logs: string[];
  /** A request to the server (see requester); a JSON answer of /api/v1 is checked against the OpenAPI document. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request helper: sends `body` as JSON, returns status, headers and parsed body. */
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResult<T>>;
  stop(): Promise<void>;
}

export interface JsonResult<T> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A JSON request helper for a server at `baseUrl` (the `json` of TestServer). Answers of
 * /api/v1 are checked against the OpenAPI document (./openapi-answers.ts).
 */
export function jsonRequester(baseUrl: string): TestServer["json"] {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: the raw text is returned for the test to inspect.
    }
    if (parsed !== text) await checkAnswer(baseUrl, method, path, response.status, response.headers.get("content-type"), parsed);
    return { status: response.status, headers: response.headers, body: parsed as never };
  };
}

/**
 * The `fetch` of TestServer for a server at `baseUrl`: `path` is a path on it, or an absolute
 * URL on it (a link one of its answers gave; a link elsewhere throws). Answers in JSON of
 * /api/v1 and /health are checked against the OpenAPI document (./openapi-answers.ts).
 */
export function requester(baseUrl: string): TestServer["fetch"] {
  return async (path, init) => {
    const url = path.startsWith("/") ? `${baseUrl}${path}` : path;
    if (!url.startsWith(`${baseUrl}/`)) throw new Error(`${path} is not on the server at ${baseUrl}`);
    const response = await fetch(url, init);
    const contentType = response.headers.get("content-type");
    if (contentType?.includes("json")) {
      const body = await response
        .clone()
        .json()
        .catch(() => undefined); // not JSON after all: the test sees it
      if (body !== undefined) await checkAnswer(baseUrl, init?.method ?? "GET", url.slice(baseUrl.length), response.status, contentType, body);
    }
    return response;
  };
}

/** What the request helpers need of a server: its JSON requests (a TestServer, or a process's). */
export type JsonClient = Pick<TestServer, "json">;

/**
 * The JsonClient of a server at `baseUrl` (a server process's, for the request helpers).
 * `freshConnections`: every request on a connection of its own, closed after it, so that none
 * stays open on one of the processes sharing the port (`serve --workers`).
 */
export function jsonClient(baseUrl: string, freshConnections = false): JsonClient {
  const json = jsonRequester(baseUrl);
  return { json: freshConnections ? (method, path, body, headers) => json(method, path, body, { connection: "close", ...headers }) : json };
}

/** Fast password hashing for tests that are not about hashing cost. */
export const TEST_AUTH = { argon2_memory_cost: 1024, argon2_time_cost: 1, argon2_parallelism: 1 };

export async function startTestServer(kind: DatabaseKind, overrides: Record<string, unknown> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "longbox-test-"));
  let database: TestDatabase | undefined;
  try {
    database = await createTestDatabase(kind, join(dir, "data"));
    const configPath = join(dir, "config.yaml");
    const base = {
      application: { host: "127.0.0.1", port: 0, data_dir: join(dir, "data") },
      database: database.config,
      auth: TEST_AUTH,
      logging: { level: "debug" },
      // Watching would start scans of its own while tests change files and scan by hand; the
      // watching tests turn it on.
      scanner: { watch_enabled: false },
    };
    writeFileSync(configPath, JSON.stringify(deepMerge(base, overrides), null, 2));
    const logs: string[] = [];
    const log = createLogger({ level: "debug", format: "text", sink: (line) => void logs.push(line) });
    const server = await startServer(loadConfig({ path: configPath, env: {} }), { port: 0, log });
    const droppable = database;
    return {
      kind,
      url: server.url,
      dir,
      configPath,
      server,
      logs,
      fetch: requester(server.url),
      json: jsonRequester(server.url),
      async stop() {
        await server.stop();
        await droppable.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Runs `suite` once per database kind with a server started before and stopped after it.
 * The suite receives a getter because the server exists only once beforeAll has run.
 */
export function forEachDatabase(
  name: string,
  suite: (server: () => TestServer) => void,
  overrides: Record<string, unknown> = {},
): void {
  for (const kind of DATABASE_KINDS) {
    describe(`${name} [${kind}]`, () => {
      let current: TestServer | undefined;
      beforeAll(async () => {
        current = await startTestServer(kind, overrides);
      });
      afterAll(async () => {
        await current?.stop();
      });
      suite(() => {
        if (!current) throw new Error("the test server did not start");
        return current;
      });
    });
  }
}

export interface SecondInstance {
  url: string;
  dataDir: string;
  server: RunningServer;
  fetch: TestServer["fetch"];
  stop(): Promise<void>;
}

/**
 * Another in-process instance on `first`'s database, with its own (empty) data folder, in role
 * web: it runs no jobs (on SQLite only the first instance runs them, as docs/scaling.md asks),
 * like the web process of `serve --workers`.
 */
export async function startSecondInstance(first: TestServer): Promise<SecondInstance> {
  const dir = mkdtempSync(join(tmpdir(), "longbox-second-"));
  const config = JSON.parse(readFileSync(first.configPath, "utf8"));
  config.application.data_dir = join(dir, "data");
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, JSON.stringify(config));
  const log = createLogger({ level: "info", format: "text", sink: () => undefined });
  const server = await startServer(loadConfig({ path: configPath, env: {} }), { port: 0, log, role: "web" });
  return {
    url: server.url,
    dataDir: config.application.data_dir,
    server,
    fetch: requester(server.url),
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
