import { beforeAll, expect, test } from "bun:test";
import { PRUNE_REFRESH_TOKENS } from "../../src/jobs";
import { sha256 } from "../helpers/digests";
import { forEachDatabase } from "../helpers/server";
import { countRows, rawQuery } from "../helpers/sql";
import { adminSession, bearer, createUser, login, PASSWORD } from "../helpers/auth";


forEachDatabase(
  "refresh tokens",
  (server) => {
    let adminToken: string;
    beforeAll(async () => {
      adminToken = (await adminSession(server())).token;
      await createUser(server(), adminToken, "reader");
    });

    const refresh = (token: string) => server().json("POST", "/api/v1/auth/refresh", { refresh_token: token });
    const me = (token: string) => server().json("GET", "/api/v1/auth/me", undefined, bearer(token));
    const statusOf = async (token: string) =>
      (await rawQuery(server(), "SELECT status FROM refresh_tokens WHERE token_hash = $1", sha256(token)))[0]?.status;

    test("a refresh token is rt_ + 43 base64url characters and only its SHA-256 is stored", async () => {
      const session = await login(server(), "reader");
      expect(session.refresh_token).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
      const rows = await rawQuery(server(), "SELECT token_hash, status FROM refresh_tokens WHERE user_id = $1", session.user.id);
      expect(rows).toContainEqual({ token_hash: sha256(session.refresh_token), status: "active" });
      const everything = JSON.stringify(await rawQuery(server(), "SELECT * FROM refresh_tokens"));
      expect(everything).not.toContain(session.refresh_token.slice(3));
    });

    test("the lifetime is auth.refresh_token_expiry_days (7 here)", async () => {
      const { body } = await server().json("POST", "/api/v1/auth/login", { username: "reader", password: PASSWORD });
      const days = (new Date(body.refresh_token_expires_at).getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.99);
      expect(days).toBeLessThanOrEqual(7);
    });

    test("active -> used: a refresh rotates, returning a new access token and a new refresh token of the same family", async () => {
      const session = await login(server(), "reader");
      const first = await refresh(session.refresh_token);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body).sort()).toEqual(
        ["expires_at", "refresh_token", "refresh_token_expires_at", "token", "token_type", "user"].sort(),
      );
      expect(first.body.token).not.toBe(session.token);
      expect(first.body.refresh_token).not.toBe(session.refresh_token);
      expect(await statusOf(session.refresh_token)).toBe("used");
      expect(await statusOf(first.body.refresh_token)).toBe("active");
      const families = await rawQuery(
        server(),
        "SELECT DISTINCT family_id FROM refresh_tokens WHERE token_hash IN ($1, $2)",
        sha256(session.refresh_token),
        sha256(first.body.refresh_token),
      );
      expect(families).toHaveLength(1);
      expect((await server().json("GET", "/api/v1/auth/me", undefined, bearer(first.body.token))).status).toBe(200);
      // The camelCase spelling is accepted too.
      const second = await server().json("POST", "/api/v1/auth/refresh", { refreshToken: first.body.refresh_token });
      expect(second.status).toBe(200);
    });

    test("used -> rejected: reusing a rotated token is 401 and revokes every active token of its family, not other families", async () => {
      const stolen = await login(server(), "reader");
      const otherDevice = await login(server(), "reader");
      const rotated = await refresh(stolen.refresh_token);
      expect(rotated.status).toBe(200);
      expect((await me(rotated.body.token)).status).toBe(200);

      const reuse = await refresh(stolen.refresh_token);
      expect(reuse.status).toBe(401);
      expect(reuse.body.error).toBe("Unauthorized");
      expect(await statusOf(rotated.body.refresh_token)).toBe("revoked");
      expect((await refresh(rotated.body.refresh_token)).status).toBe(401);
      // The access token the thief got from the rotation ends too, as do the account's others...
      expect((await me(rotated.body.token)).status).toBe(401);
      expect((await me(otherDevice.token)).status).toBe(401);
      // ...but another login is another family: it survives, and refreshing gives a working token.
      const recovered = await refresh(otherDevice.refresh_token);
      expect(recovered.status).toBe(200);
      expect((await me(recovered.body.token)).status).toBe(200);
    });

    test("active -> revoked: logout revokes the token (204), after which it cannot refresh", async () => {
      const session = await login(server(), "reader");
      const logout = await server().json("POST", "/api/v1/auth/logout", { refresh_token: session.refresh_token });
      expect(logout.status).toBe(204);
      expect(await statusOf(session.refresh_token)).toBe("revoked");
      expect((await refresh(session.refresh_token)).status).toBe(401);
    });

    test("an expired token cannot refresh", async () => {
      const session = await login(server(), "reader");
      await rawQuery(server(), "UPDATE refresh_tokens SET expires_at = $1 WHERE token_hash = $2", new Date(Date.now() - 1000), sha256(session.refresh_token));
      expect((await refresh(session.refresh_token)).status).toBe(401);
    });

    test("active or used -> pruned: the daily job deletes expired tokens and keeps the others", async () => {
      const session = await login(server(), "reader");
      const rotated = await refresh(session.refresh_token);
      const kept = await login(server(), "reader");
      const past = new Date(Date.now() - 1000);
      for (const token of [session.refresh_token, rotated.body.refresh_token]) {
        await rawQuery(server(), "UPDATE refresh_tokens SET expires_at = $1 WHERE token_hash = $2", past, sha256(token));
      }
      const before = await countRows(server(), "refresh_tokens");
      await server().server.scheduler.runNow(PRUNE_REFRESH_TOKENS);
      expect(await statusOf(session.refresh_token)).toBeUndefined();
      expect(await statusOf(rotated.body.refresh_token)).toBeUndefined();
      expect(await countRows(server(), "refresh_tokens")).toBeLessThanOrEqual(before - 2);
      expect((await refresh(rotated.body.refresh_token)).status).toBe(401);
      expect((await refresh(kept.refresh_token)).status).toBe(200);
    });

    test("concurrent refreshes with the same token: exactly one succeeds", async () => {
      const session = await login(server(), "reader");
      const results = await Promise.all(Array.from({ length: 6 }, () => refresh(session.refresh_token)));
      expect(results.map((result) => result.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
    });

    test("an admin password reset ends the user's sessions", async () => {
      const id = await createUser(server(), adminToken, "resetme");
      const session = await login(server(), "resetme");
      const reset = await server().json("PUT", `/api/v1/users/${id}`, { password: "a brand new password" }, bearer(adminToken));
      expect(reset.status).toBe(200);
      expect((await refresh(session.refresh_token)).status).toBe(401);
    });

    test("malformed refresh tokens are 401, a missing one is 400", async () => {
      expect((await refresh("rt_short")).status).toBe(401);
      expect((await refresh(`rt_${"A".repeat(43)}`)).status).toBe(401);
      expect((await server().json("POST", "/api/v1/auth/refresh", {})).status).toBe(400);
    });

    test("refresh tokens never reach the log", async () => {
      const session = await login(server(), "reader");
      await refresh(session.refresh_token);
      await refresh(session.refresh_token);
      await Bun.sleep(20);
      expect(server().logs.join("\n")).not.toContain(session.refresh_token);
      expect(server().logs.some((line) => line.includes("refresh token reuse detected"))).toBe(true);
    });
  },
  { auth: { refresh_token_expiry_days: 7, login_max_failures: 1000 } },
);

forEachDatabase(
  "refresh tokens disabled",
  (server) => {
    test("auth.refresh_token_enabled false: login has no refresh token, refresh is 404, nothing is stored", async () => {
      const { refresh_token, token } = await adminSession(server());
      expect(token).toEqual(expect.any(String));
      expect(refresh_token).toBeUndefined();
      const { body } = await server().json("POST", "/api/v1/auth/login", { username: "admin", password: PASSWORD });
      expect(Object.keys(body).sort()).toEqual(["expires_at", "token", "token_type", "user"]);
      const attempt = await server().json("POST", "/api/v1/auth/refresh", { refresh_token: `rt_${"A".repeat(43)}` });
      expect(attempt.status).toBe(404);
      expect(await countRows(server(), "refresh_tokens")).toBe(0);
    });
  },
  { auth: { refresh_token_enabled: false } },
);
