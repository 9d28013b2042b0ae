/** Small helpers shared by the authentication tests. */
import { expect } from "bun:test";
import { createHmac } from "node:crypto";
import type { JsonClient, TestServer } from "./server";

/** A fixed signing secret written into the test configuration, so tests can forge tokens. */
export const TEST_JWT_SECRET = "test-secret-0123456789-abcdefghijklmnopqrstuvwxyz";

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const basic = (username: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString("base64")}`,
});

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT signed with HMAC (or unsigned for alg none) from any header and payload. */
export function forgeJwt(header: Record<string, unknown>, payload: Record<string, unknown>, secret = TEST_JWT_SECRET): string {
  const signingInput = `${b64url(header)}.${b64url(payload)}`;
  const alg = String(header.alg);
  if (alg === "none") return `${signingInput}.`;
  const hash = { HS256: "sha256", HS384: "sha384", HS512: "sha512" }[alg];
  if (!hash) throw new Error(`cannot forge ${alg}`);
  return `${signingInput}.${createHmac(hash, secret).update(signingInput).digest("base64url")}`;
}

export function decodeJwtPart(token: string, part: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[part] ?? "", "base64url").toString("utf8"));
}

export const PASSWORD = "correct horse battery";

/** Creates the first admin through /api/v1/setup (once per server) and returns a login result. */
export async function adminSession(server: JsonClient, username = "admin") {
  const setup = await server.json("POST", "/api/v1/setup", { username, email: `${username}@example.org`, password: PASSWORD });
  if (setup.status !== 201 && setup.status !== 409) throw new Error(`setup failed: ${setup.status}`);
  return login(server, username, PASSWORD);
}

export async function login(server: JsonClient, username: string, password = PASSWORD, headers: Record<string, string> = {}) {
  const result = await server.json("POST", "/api/v1/auth/login", { username, password }, headers);
  if (result.status !== 200) throw new Error(`login of ${username} failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as { token: string; refresh_token: string; user: { id: string } };
}

/** An admin creates a user; returns the new user's id. */
export async function createUser(server: TestServer, adminToken: string, username: string, role: "admin" | "user" = "user") {
  const created = await server.json(
    "POST",
    "/api/v1/users",
    { username, email: `${username.toLowerCase()}@example.org`, password: PASSWORD, role },
    bearer(adminToken),
  );
  if (created.status !== 201) throw new Error(`creating ${username} failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/** Signs in through the login form; the session cookie as a Cookie header value. */
export async function webSignIn(server: Pick<TestServer, "url" | "fetch">, username: string, password = PASSWORD): Promise<string> {
  const response = await server.fetch("/login", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
    body: new URLSearchParams({ username, password }).toString(),
  });
  expect(response.status).toBe(303);
  const cookie = response.headers.get("set-cookie") ?? "";
  expect(cookie).toContain("HttpOnly");
  return cookie.split(";")[0]!;
}
