/**
 * logging.file, and logging.level on a real `longbox serve` process: every line
 * goes to the file as well as stdout, lines under the level are left out, and neither the
 * passwords nor the tokens of the requests it served ever reach the log, at any level.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { basic, bearer, PASSWORD } from "../helpers/auth";
import type { ServerProcess } from "../../scripts/server-process";
import { DATABASE_KINDS, type DatabaseKind } from "../helpers/databases";
import { instancesOnOneDatabase } from "../helpers/instances";
import { tempFolder } from "../helpers/library";
import { requester } from "../helpers/server";
import { processClient } from "../helpers/server-processes";

const WRONG_PASSWORD = "a wrong password that must stay unlogged";

/** Requests carrying every kind of credential: the password (JSON and Basic), a wrong one, the tokens. */
async function credentialedRequests(url: string) {
  const call = processClient(url);
  const request = requester(url);
  expect((await call("POST", "/api/v1/setup", undefined, { username: "admin", email: "admin@example.org", password: PASSWORD })).status).toBe(201);
  const login = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
  expect(login.status).toBe(200);
  expect((await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: WRONG_PASSWORD })).status).toBe(401);
  const token: string = login.body.token;
  const refreshToken: string = login.body.refresh_token;
  expect((await call("GET", "/api/v1/auth/me", token)).status).toBe(200);
  expect((await request("/api/v1/auth/me", { headers: basic("admin", PASSWORD) })).status).toBe(200);
  const refreshed = await call("POST", "/api/v1/auth/refresh", undefined, { refresh_token: refreshToken });
  expect(refreshed.status).toBe(200);
  const badBearer = `${token.slice(0, -4)}AAAA`;
  expect((await request("/api/v1/auth/me", { headers: bearer(badBearer) })).status).toBe(401);
  return [PASSWORD, WRONG_PASSWORD, token, refreshToken, refreshed.body.token as string, refreshed.body.refresh_token as string, badBearer];
}

/**
 * Runs a server process logging to `file` at `level` through the credentialed requests, stops
 * it, and returns its URL, the credentials it saw and the lines of the log file (checked to be
 * the lines the process wrote to stdout).
 */
async function serveAndReadLog(kind: DatabaseKind, file: string, level: "info" | "debug") {
  const instances = await instancesOnOneDatabase(kind, { logging: { file, level } });
  let server: ServerProcess;
  let secrets: string[];
  try {
    server = await instances.start();
    secrets = await credentialedRequests(server.url);
  } finally {
    await instances.stop();
  }
  expect(existsSync(file)).toBe(true);
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  expect(lines.length).toBeGreaterThan(2);
  expect(server.output().split("\n").filter(Boolean)).toEqual(lines);
  return { url: server.url, secrets, lines, text: lines.join("\n") };
}

for (const kind of DATABASE_KINDS) {
  describe(`logging to a file [${kind}]`, () => {
    test("at level info: the file gets the lines, debug lines are left out, no credential appears", async () => {
      const { url, secrets, lines, text } = await serveAndReadLog(kind, join(tempFolder("longbox-logs-"), "logs", "longbox.log"), "info");
      expect(text).toContain("INFO  database ready");
      expect(text).toContain(`INFO  longbox listening url=${url}`);
      expect(text).toContain("INFO  stopped");
      for (const line of lines) expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z (ERROR|WARN |INFO ) /);
      // The per-request lines are debug lines: none at info.
      expect(text).not.toContain("DEBUG");
      expect(text).not.toContain("/api/v1/auth/me");
      for (const secret of secrets) expect(text).not.toContain(secret);
    }, 60_000);

    test("at level debug: the request lines are there too, still without any credential", async () => {
      const { url, secrets, lines, text } = await serveAndReadLog(kind, join(tempFolder("longbox-logs-"), "longbox.log"), "debug");
      expect(text).toContain(`INFO  longbox listening url=${url}`);
      const requests = lines.filter((line) => / DEBUG request /.test(line));
      expect(requests.some((line) => line.includes("method=GET path=/api/v1/auth/me status=200"))).toBe(true);
      expect(requests.some((line) => line.includes("method=POST path=/api/v1/auth/login status=401"))).toBe(true);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }, 60_000);
  });
}
