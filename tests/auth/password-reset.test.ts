/**
 * A password change ends what the old password opened (issue #10, item 6; issue #27, item 4):
 * access tokens issued before it, the refresh-token families, and the API keys and KOReader sync
 * key, which only the user's own change may keep (an admin's reset ends them all). Admins list
 * and revoke any user's API keys.
 */
import { beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { adminSession, basic, bearer, createUser, login, PASSWORD } from "../helpers/auth";
import { sha256 } from "../helpers/digests";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

const NEW_PASSWORD = "a fresh password 42";

async function createKey(server: TestServer, token: string, name = "automation") {
  const created = await server.json("POST", "/api/v1/api-keys", { name }, bearer(token));
  expect(created.status).toBe(201);
  return created.body as { apiKey: { id: string }; key: string };
}

const SYNC_KEY = "kindle-sync-key-1";

async function setSyncKey(server: TestServer, token: string) {
  expect((await server.json("PUT", "/api/v1/users/me/koreader-key", { key: SYNC_KEY }, bearer(token))).status).toBe(200);
}

forEachDatabase("credentials after a password change", (server) => {
  let adminToken: string;
  const me = (headers: Record<string, string>) => server().json("GET", "/api/v1/auth/me", undefined, headers);
  /** KOReader's sign-in check with the user's sync key (sent as its MD5, as KOReader does). */
  const syncKeyStatus = async (username: string) =>
    (
      await server().fetch("/koreader/users/auth", {
        headers: { accept: "application/vnd.koreader.v1+json", "x-auth-user": username, "x-auth-key": createHash("md5").update(SYNC_KEY).digest("hex") },
      })
    ).status;
  const refresh = (refreshToken: string) => server().json("POST", "/api/v1/auth/refresh", { refresh_token: refreshToken });

  beforeAll(async () => {
    adminToken = (await adminSession(server())).token;
  });

  test("an admin reset ends the user's access tokens, refresh tokens, API keys and sync key; the new password works", async () => {
    const id = await createUser(server(), adminToken, "reset-me");
    const session = await login(server(), "reset-me");
    const other = await login(server(), "reset-me");
    const { key } = await createKey(server(), session.token);
    await setSyncKey(server(), session.token);
    expect((await me(bearer(session.token))).status).toBe(200);
    expect(await syncKeyStatus("reset-me")).toBe(200);

    const reset = await server().json("PUT", `/api/v1/users/${id}`, { password: NEW_PASSWORD }, bearer(adminToken));
    expect(reset.status).toBe(200);

    for (const headers of [bearer(session.token), bearer(other.token), bearer(key), { "x-api-key": key }, basic("reset-me", key), basic("reset-me", PASSWORD)]) {
      const response = await me(headers);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("Unauthorized");
    }
    expect((await refresh(session.refresh_token)).status).toBe(401);
    expect((await refresh(other.refresh_token)).status).toBe(401);
    expect(await syncKeyStatus("reset-me")).toBe(401);

    const fresh = await login(server(), "reset-me", NEW_PASSWORD);
    expect((await me(bearer(fresh.token))).status).toBe(200);
    expect((await refresh(fresh.refresh_token)).status).toBe(200);
    expect((await me(basic("reset-me", NEW_PASSWORD))).status).toBe(200);
    // Other accounts' tokens are untouched.
    expect((await me(bearer(adminToken))).status).toBe(200);
  });

  test("a refresh token that escaped the revocation (rotated concurrently with the change) is still refused, and ends its family", async () => {
    const id = await createUser(server(), adminToken, "racer");
    const session = await login(server(), "racer");
    expect((await server().json("PUT", `/api/v1/users/${id}`, { password: NEW_PASSWORD }, bearer(adminToken))).status).toBe(200);
    // What a rotation that commits beside the change can leave behind: an active token of the old family.
    const tokenHash = sha256(session.refresh_token);
    await rawQuery(server(), "UPDATE refresh_tokens SET status = 'active' WHERE token_hash = $1", tokenHash);
    expect((await refresh(session.refresh_token)).status).toBe(401);
    const rows = await rawQuery(server(), "SELECT status FROM refresh_tokens WHERE user_id = $1 AND status = 'active'", id);
    expect(rows).toEqual([]);
    // A family begun after the change works.
    const fresh = await login(server(), "racer", NEW_PASSWORD);
    expect((await refresh(fresh.refresh_token)).status).toBe(200);
  });

  test("an admin reset cannot keep API keys: keepApiKeys is refused (422) and nothing changes", async () => {
    const id = await createUser(server(), adminToken, "keeps-keys");
    const session = await login(server(), "keeps-keys");
    const { key } = await createKey(server(), session.token);
    const reset = await server().json("PUT", `/api/v1/users/${id}`, { password: NEW_PASSWORD, keepApiKeys: true }, bearer(adminToken));
    expect(reset.status).toBe(422);
    expect(reset.body.details.fields).toHaveProperty("keepApiKeys");
    expect((await me(bearer(key))).status).toBe(200);
    expect((await me(bearer(session.token))).status).toBe(200);
    expect((await me(basic("keeps-keys", PASSWORD))).status).toBe(200);
  });

  test("a user's own change keeps the API keys and the sync key only when asked; sessions end either way", async () => {
    await createUser(server(), adminToken, "keeps-own");
    const session = await login(server(), "keeps-own");
    const { key } = await createKey(server(), session.token);
    await setSyncKey(server(), session.token);
    const kept = await server().json("PUT", "/api/v1/auth/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, keepApiKeys: true }, bearer(session.token));
    expect(kept.status).toBe(200);
    expect((await me(bearer(key))).status).toBe(200);
    expect(await syncKeyStatus("keeps-own")).toBe(200);
    expect((await me(bearer(session.token))).status).toBe(401);
    expect((await refresh(session.refresh_token)).status).toBe(401);

    const dropped = await server().json("PUT", "/api/v1/auth/me/password", { currentPassword: NEW_PASSWORD, newPassword: `${NEW_PASSWORD}!` }, bearer(kept.body.token));
    expect(dropped.status).toBe(200);
    expect((await me(bearer(key))).status).toBe(401);
    expect(await syncKeyStatus("keeps-own")).toBe(401);
  });

  test("an update without a password leaves tokens and keys alone", async () => {
    const id = await createUser(server(), adminToken, "just-email");
    const session = await login(server(), "just-email");
    const { key } = await createKey(server(), session.token);
    expect((await server().json("PUT", `/api/v1/users/${id}`, { email: "changed@example.org" }, bearer(adminToken))).status).toBe(200);
    expect((await me(bearer(session.token))).status).toBe(200);
    expect((await me(bearer(key))).status).toBe(200);
  });

  test("a user changing their own password proves the current one, gets a new session, and ends the old ones", async () => {
    await createUser(server(), adminToken, "self-service");
    const session = await login(server(), "self-service");
    const elsewhere = await login(server(), "self-service");
    const { key } = await createKey(server(), session.token);
    await setSyncKey(server(), session.token);
    const change = (currentPassword: string, extra: Record<string, unknown> = {}) =>
      server().json("PUT", "/api/v1/auth/me/password", { currentPassword, newPassword: NEW_PASSWORD, ...extra }, bearer(session.token));

    const wrong = await change("not my password");
    expect(wrong.status).toBe(401);
    expect((await me(bearer(session.token))).status).toBe(200);
    const tooShort = await server().json("PUT", "/api/v1/auth/me/password", { currentPassword: PASSWORD, newPassword: "short" }, bearer(session.token));
    expect(tooShort.status).toBe(422);

    const changed = await change(PASSWORD);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ token_type: "Bearer", user: { username: "self-service" } });
    expect((await me(bearer(changed.body.token))).status).toBe(200);
    expect((await refresh(changed.body.refresh_token)).status).toBe(200);

    for (const headers of [bearer(session.token), bearer(elsewhere.token), bearer(key), basic("self-service", PASSWORD)]) {
      expect((await me(headers)).status).toBe(401);
    }
    expect((await refresh(elsewhere.refresh_token)).status).toBe(401);
    expect(await syncKeyStatus("self-service")).toBe(401);
    expect((await login(server(), "self-service", NEW_PASSWORD)).user.id).toBe(changed.body.user.id);
  });

  test("admins list and revoke any user's API keys; users cannot; unknown users and keys are 404", async () => {
    const id = await createUser(server(), adminToken, "key-holder");
    const session = await login(server(), "key-holder");
    const first = await createKey(server(), session.token, "first");
    const second = await createKey(server(), session.token, "second");

    const listed = await server().json("GET", `/api/v1/users/${id}/api-keys`, undefined, bearer(adminToken));
    expect(listed.status).toBe(200);
    expect(listed.body.map((apiKey: { name: string }) => apiKey.name)).toEqual(["first", "second"]);
    expect(JSON.stringify(listed.body)).not.toContain(first.key);

    const revoked = await server().fetch(`/api/v1/users/${id}/api-keys/${first.apiKey.id}`, { method: "DELETE", headers: bearer(adminToken) });
    expect(revoked.status).toBe(204);
    expect((await me(bearer(first.key))).status).toBe(401);
    expect((await me(bearer(second.key))).status).toBe(200);

    const adminId = (await me(bearer(adminToken))).body.id;
    // A key id under the wrong user is not found (and not revoked).
    expect((await server().fetch(`/api/v1/users/${adminId}/api-keys/${second.apiKey.id}`, { method: "DELETE", headers: bearer(adminToken) })).status).toBe(404);
    expect((await me(bearer(second.key))).status).toBe(200);
    expect((await server().json("GET", "/api/v1/users/00000000-0000-7000-8000-000000000000/api-keys", undefined, bearer(adminToken))).status).toBe(404);

    for (const [method, path] of [
      ["GET", `/api/v1/users/${id}/api-keys`],
      ["GET", `/api/v1/users/${adminId}/api-keys`],
      ["DELETE", `/api/v1/users/${id}/api-keys/${second.apiKey.id}`],
    ] as const) {
      expect((await server().fetch(path, { method, headers: bearer(session.token) })).status).toBe(403);
    }
  });
});
