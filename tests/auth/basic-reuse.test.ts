/**
 * HTTP Basic reuses a recent successful password check (one Argon2 check, not one per request),
 * but never across a password change, a disabled account or another username.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("HTTP Basic password reuse", (server) => {
  let adminToken: string;
  let readerId: string;
  const me = (headers: Record<string, string>) => server().json("GET", "/api/v1/auth/me", undefined, headers);

  beforeAll(async () => {
    adminToken = (await adminSession(server())).token;
    readerId = await createUser(server(), adminToken, "reader");
  });

  test("a password reset ends the reuse at once", async () => {
    for (let index = 0; index < 3; index++) expect((await me(basic("reader", PASSWORD))).status).toBe(200);
    const reset = await server().json("PUT", `/api/v1/users/${readerId}`, { password: "a brand new password" }, bearer(adminToken));
    expect(reset.status).toBe(200);
    expect((await me(basic("reader", PASSWORD))).status).toBe(401);
    expect((await me(basic("reader", "a brand new password"))).status).toBe(200);
  });

  test("a disabled account is refused even with a reused check", async () => {
    expect((await me(basic("reader", "a brand new password"))).status).toBe(200);
    await server().json("PUT", `/api/v1/users/${readerId}`, { disabled: true }, bearer(adminToken));
    expect((await me(basic("reader", "a brand new password"))).status).toBe(403);
  });
});
