import { afterAll, beforeAll, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { errorHandling } from "../../src/http/errors";
import { authPlugin } from "../../src/http/auth-plugin";
import { sha256 } from "../helpers/digests";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";
import { adminSession, basic, bearer, createUser, login, PASSWORD } from "../helpers/auth";

forEachDatabase(
  "API keys, HTTP Basic and the auth plugin",
  (server) => {
    let adminToken: string;
    let readerToken: string;
    beforeAll(async () => {
      adminToken = (await adminSession(server())).token;
      await createUser(server(), adminToken, "reader");
      readerToken = (await login(server(), "reader")).token;
    });

    const createKey = async (token: string, body: Record<string, unknown> = { name: "automation" }) => {
      const created = await server().json("POST", "/api/v1/api-keys", body, bearer(token));
      expect(created.status).toBe(201);
      return created.body as { apiKey: { id: string; keyPrefix: string; lastUsedAt: string | null }; key: string };
    };
    const me = (headers: Record<string, string>) => server().json("GET", "/api/v1/auth/me", undefined, headers);

    test("creating a key returns it once, in the contract's format; listing shows only metadata", async () => {
      const created = await server().json("POST", "/api/v1/api-keys", { name: "backup script" }, bearer(readerToken));
      expect(created.status).toBe(201);
      const { apiKey, key } = created.body;
      expect(key).toMatch(/^lbx_[0-9a-f]{16}_[0-9a-f]{32}$/);
      expect(apiKey).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "backup script",
        keyPrefix: key.slice(0, 20),
        scope: "full",
        createdAt: expect.any(String),
        expiresAt: null,
        lastUsedAt: null,
      });
      const list = await server().json("GET", "/api/v1/api-keys", undefined, bearer(readerToken));
      expect(list.status).toBe(200);
      expect(list.body.map((entry: { id: string }) => entry.id)).toContain(apiKey.id);
      expect(JSON.stringify(list.body)).not.toContain(key.slice(21));
      // Another user's list does not show it.
      const adminList = await server().json("GET", "/api/v1/api-keys", undefined, bearer(adminToken));
      expect(adminList.body.map((entry: { id: string }) => entry.id)).not.toContain(apiKey.id);
      // Stored: the prefix in clear and a SHA-256 of the whole key, never the key.
      const [row] = await rawQuery(server(), "SELECT key_prefix, key_hash FROM api_keys WHERE id = $1", apiKey.id);
      expect(row).toEqual({ key_prefix: key.slice(0, 20), key_hash: sha256(key) });
    });

    test("a key works as Bearer, as X-API-Key and as the Basic password of its owner; last-used time is recorded", async () => {
      const { apiKey, key } = await createKey(readerToken);
      for (const headers of [bearer(key), { "x-api-key": key }, basic("reader", key)]) {
        const response = await me(headers);
        expect({ headers, status: response.status, user: response.body.username }).toEqual({ headers, status: 200, user: "reader" });
      }
      const list = await server().json("GET", "/api/v1/api-keys", undefined, bearer(key));
      const listed = list.body.find((entry: { id: string }) => entry.id === apiKey.id);
      expect(new Date(listed.lastUsedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    });

    test("a key with another username in Basic, a tampered secret or an unknown prefix is 401", async () => {
      const { key } = await createKey(readerToken);
      const tampered = `${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`;
      const unknown = `lbx_${"0".repeat(16)}_${"0".repeat(32)}`;
      for (const headers of [basic("admin", key), bearer(tampered), { "x-api-key": unknown }, bearer("lbx_nonsense")]) {
        const response = await me(headers);
        expect({ headers, status: response.status }).toEqual({ headers, status: 401 });
      }
    });

    test("a revoked key is 401; revoking another user's key is 404", async () => {
      const { apiKey, key } = await createKey(readerToken);
      expect((await server().json("DELETE", `/api/v1/api-keys/${apiKey.id}`, undefined, bearer(adminToken))).status).toBe(404);
      expect((await me(bearer(key))).status).toBe(200);
      expect((await server().json("DELETE", `/api/v1/api-keys/${apiKey.id}`, undefined, bearer(readerToken))).status).toBe(204);
      expect((await me(bearer(key))).status).toBe(401);
      expect((await server().json("DELETE", "/api/v1/api-keys/not-a-uuid", undefined, bearer(readerToken))).status).toBe(400);
    });

    test("optional expiry: a key past its expiry is 401; an expiry in the past is refused with 422", async () => {
      const future = new Date(Date.now() + 3600_000).toISOString();
      const { apiKey, key } = await createKey(readerToken, { name: "temporary", expiresAt: future });
      expect(apiKey).toMatchObject({ expiresAt: future });
      expect((await me(bearer(key))).status).toBe(200);
      await rawQuery(server(), "UPDATE api_keys SET expires_at = $1 WHERE id = $2", new Date(Date.now() - 1000), apiKey.id);
      expect((await me(bearer(key))).status).toBe(401);

      const past = await server().json("POST", "/api/v1/api-keys", { name: "x", expiresAt: "2001-01-01T00:00:00Z" }, bearer(readerToken));
      expect(past.status).toBe(422);
      const garbage = await server().json("POST", "/api/v1/api-keys", { name: "x", expiresAt: "soon" }, bearer(readerToken));
      expect(garbage.status).toBe(400);
    });

    test("an API key works on every authenticated route, with its owner's role", async () => {
      const { key: adminKey } = await createKey(adminToken, { name: "admin automation" });
      const { key: readerKey } = await createKey(readerToken, { name: "reader automation" });
      const [reader] = (await server().json("GET", "/api/v1/users?pageSize=500", undefined, bearer(adminKey))).body.data.filter(
        (user: { username: string }) => user.username === "reader",
      );
      const userRoutes = [
        ["GET", "/api/v1/auth/me"],
        ["GET", "/api/v1/api-keys"],
      ];
      const adminRoutes = [
        ["GET", "/api/v1/users"],
        ["GET", `/api/v1/users/${reader.id}`],
      ];
      for (const [method, path] of [...userRoutes, ...adminRoutes]) {
        const response = await server().json(method!, path!, undefined, bearer(adminKey));
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
      }
      for (const [method, path] of userRoutes) {
        expect((await server().json(method!, path!, undefined, { "x-api-key": readerKey })).status).toBe(200);
      }
      for (const [method, path] of adminRoutes) {
        const response = await server().json(method!, path!, undefined, { "x-api-key": readerKey });
        expect({ path, status: response.status, error: response.body.error }).toEqual({ path, status: 403, error: "Forbidden" });
      }
      // Writes too (except creating credentials: tests/auth/key-scopes.test.ts): revoke a key, update and delete a user.
      const made = await createKey(readerToken, { name: "made by the login" });
      expect((await server().json("DELETE", `/api/v1/api-keys/${made.apiKey.id}`, undefined, bearer(readerKey))).status).toBe(204);
      const tempId = await createUser(server(), adminToken, "temp-user");
      expect((await server().json("PUT", `/api/v1/users/${tempId}`, { disabled: true }, bearer(adminKey))).status).toBe(200);
      expect((await server().json("DELETE", `/api/v1/users/${tempId}`, undefined, bearer(adminKey))).status).toBe(204);
    });

    test("HTTP Basic with username and password works on the API; a wrong password is 401 without a challenge", async () => {
      const ok = await me(basic("reader", PASSWORD));
      expect(ok.status).toBe(200);
      expect(ok.body.username).toBe("reader");
      const wrong = await me(basic("reader", "not the password"));
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toBeNull();
      // Usernames match regardless of case.
      expect((await me(basic("Reader", PASSWORD))).status).toBe(200);
      expect((await me({ authorization: "Basic !!!" })).status).toBe(401);
      expect((await me({ authorization: "Digest abc" })).status).toBe(401);
    });

    test("keys and passwords never reach the log", async () => {
      const { key } = await createKey(readerToken);
      await me(bearer(key));
      await me(basic("reader", key));
      await Bun.sleep(20);
      const logs = server().logs.join("\n");
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(PASSWORD);
    });

    test("disabled accounts are refused with every credential", async () => {
      const id = await createUser(server(), adminToken, "to-disable");
      const session = await login(server(), "to-disable");
      const { key } = await createKey(session.token);
      expect((await server().json("PUT", `/api/v1/users/${id}`, { disabled: true }, bearer(adminToken))).status).toBe(200);
      for (const headers of [bearer(session.token), bearer(key), basic("to-disable", PASSWORD)]) {
        const response = await me(headers);
        expect(response.status).toBe(403);
        expect(response.body.error).toBe("AccountDisabled");
      }
      const loginAttempt = await server().json("POST", "/api/v1/auth/login", { username: "to-disable", password: PASSWORD });
      expect(loginAttempt.status).toBe(403);
    });

    // The OPDS slice mounts the plugin with the Basic challenge; a stand-in route proves the option.
    let opds: { url: string; stop(): void } | undefined;
    afterAll(() => opds?.stop());
    test("with basicChallenge (OPDS) a 401 carries WWW-Authenticate: Basic realm=\"Longbox\"; Basic and API keys work", async () => {
      const services = server().server.services;
      // API slices before and after the OPDS slice: each keeps its own 401 behaviour.
      const apiSlice = (path: string) => new Elysia().use(authPlugin(services)).get(path, () => "ok", { auth: "user" });
      const opdsSlice = new Elysia()
        .use(authPlugin(services, { basicChallenge: true }))
        .get("/opds/v1.2/catalog", ({ caller }) => ({ user: caller.user.username, via: caller.via }), { auth: "user" });
      const app = new Elysia()
        .use(errorHandling(services.log))
        .use(apiSlice("/api/v1/before"))
        .use(opdsSlice)
        .use(apiSlice("/api/v1/after"))
        .listen({ hostname: "127.0.0.1", port: 0 });
      opds = { url: `http://127.0.0.1:${app.server!.port}`, stop: () => void app.stop(true) };
      for (const path of ["/api/v1/before", "/api/v1/after"]) {
        const response = await fetch(`${opds.url}${path}`);
        expect({ path, status: response.status, challenge: response.headers.get("www-authenticate") }).toEqual({ path, status: 401, challenge: null });
      }
      const anonymous = await fetch(`${opds.url}/opds/v1.2/catalog`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="Longbox"');
      const wrong = await fetch(`${opds.url}/opds/v1.2/catalog`, { headers: basic("reader", "wrong password") });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="Longbox"');
      const { key } = await createKey(readerToken);
      for (const [headers, via] of [
        [basic("reader", PASSWORD), "basic"],
        [basic("reader", key), "basic"],
        [bearer(readerToken), "jwt"],
        [bearer(key), "apiKey"],
      ] as const) {
        const response = await fetch(`${opds.url}/opds/v1.2/catalog`, { headers });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ user: "reader", via });
      }
    });
  },
  { auth: { login_max_failures: 1000 } },
);
