/**
 * Revocation across processes (issue #27, item 4): credentials used through `reader` (so every
 * process answering it reuses the account row and the API key it read), then revoked through
 * `admin`, are refused through `reader` REVOCATION_LATENCY_MS later. The two are the two
 * instances of one PostgreSQL database, or one `serve --workers` port reached on fresh
 * connections (requests then land on either process, so each step asks several times).
 */
import { expect } from "bun:test";
import { basic, PASSWORD } from "./auth";
import type { ProcessCall } from "./server-processes";

/** What docs/auth.md promises: every process refuses a revoked credential within this. */
export const REVOCATION_LATENCY_MS = 100;
const TRIES = 8;

/** Every one of TRIES requests with `credentials` answers one of `statuses`. */
async function expectStatus(call: ProcessCall, credentials: string | Record<string, string>, ...statuses: number[]): Promise<void> {
  for (let attempt = 0; attempt < TRIES; attempt++) expect(statuses).toContain((await call("GET", "/api/v1/auth/me", credentials)).status);
}

/** A new user `username` with a session and two API keys, signed in through `reader`. */
async function newReader(admin: ProcessCall, reader: ProcessCall, adminToken: string, username: string) {
  const created = await admin("POST", "/api/v1/users", adminToken, { username, password: PASSWORD, role: "user" });
  expect(created.status).toBe(201);
  const { body: session } = await reader("POST", "/api/v1/auth/login", undefined, { username, password: PASSWORD });
  const key = async (name: string) => (await reader("POST", "/api/v1/api-keys", session.token, { name })).body as { apiKey: { id: string }; key: string };
  return { id: created.body.id as string, token: session.token as string, kept: await key("kept"), deleted: await key("deleted") };
}

export async function expectRevocationEverywhere(admin: ProcessCall, reader: ProcessCall, adminToken: string, username: string): Promise<void> {
  const user = await newReader(admin, reader, adminToken, username);

  await expectStatus(reader, user.deleted.key, 200);
  expect((await admin("DELETE", `/api/v1/api-keys/${user.deleted.apiKey.id}`, user.token)).status).toBe(204);
  await Bun.sleep(REVOCATION_LATENCY_MS);
  await expectStatus(reader, user.deleted.key, 401);

  const oldPassword = basic(username, PASSWORD);
  for (const credential of [user.token, user.kept.key, oldPassword]) await expectStatus(reader, credential, 200);
  expect((await admin("PUT", `/api/v1/users/${user.id}`, adminToken, { password: "the password after the reset" })).status).toBe(200);
  await Bun.sleep(REVOCATION_LATENCY_MS);
  for (const credential of [user.token, user.kept.key]) await expectStatus(reader, credential, 401);
  // The old password is a failed sign-in now: 401, and 429 once its failures reach the limit.
  await expectStatus(reader, oldPassword, 401, 429);
}

/**
 * Failed sign-ins counted through `admin` refuse, REVOCATION_LATENCY_MS later, the HTTP Basic
 * password `reader`'s processes remember (their throttle decisions are dropped everywhere).
 * `maxFailures` is the configuration's auth.login_max_failures.
 */
export async function expectThrottleEverywhere(admin: ProcessCall, reader: ProcessCall, adminToken: string, username: string, maxFailures: number): Promise<void> {
  await newReader(admin, reader, adminToken, username);
  await expectStatus(reader, basic(username, PASSWORD), 200);
  for (let failure = 0; failure < maxFailures; failure++) {
    expect((await admin("POST", "/api/v1/auth/login", undefined, { username, password: "a wrong guess" })).status).toBe(401);
  }
  await Bun.sleep(REVOCATION_LATENCY_MS);
  await expectStatus(reader, basic(username, PASSWORD), 429);
}
