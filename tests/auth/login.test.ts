import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { processClient } from "../helpers/server-processes";
import { forEachDatabase, TEST_AUTH } from "../helpers/server";
import { adminSession, bearer, createUser, decodeJwtPart, forgeJwt, login, PASSWORD, TEST_JWT_SECRET } from "../helpers/auth";

forEachDatabase(
  "login and access tokens",
  (server) => {
    let admin: Awaited<ReturnType<typeof adminSession>>;
    beforeAll(async () => {
      admin = await adminSession(server(), "Admin");
    });

    const claimsFor = (overrides: Record<string, unknown> = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return { sub: admin.user.id, role: "admin", ver: 0, iat: now, exp: now + 600, jti: crypto.randomUUID(), ...overrides };
    };
    const me = (token: string) => server().json("GET", "/api/v1/auth/me", undefined, bearer(token));

    test("login returns the spec's login result with an HS256 JWT carrying sub, role, ver, iat, exp, jti", async () => {
      const before = Date.now();
      const { status, body } = await server().json("POST", "/api/v1/auth/login", { username: "Admin", password: PASSWORD });
      expect(status).toBe(200);
      // A copy: Bun's toMatchObject writes the asymmetric matchers into the object it inspects.
      expect(structuredClone(body)).toMatchObject({
        token: expect.any(String),
        expires_at: expect.any(String),
        refresh_token: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
        refresh_token_expires_at: expect.any(String),
        token_type: "Bearer",
        user: { username: "Admin", role: "admin", email: "Admin@example.org", emailVerified: true },
      });
      expect(decodeJwtPart(body.token, 0)).toMatchObject({ alg: "HS256" });
      const claims = decodeJwtPart(body.token, 1);
      expect(claims).toEqual({
        sub: admin.user.id,
        role: "admin",
        ver: 0,
        iat: expect.any(Number),
        exp: expect.any(Number),
        jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      // auth.jwt_expiry_hours is 2 in this suite's configuration.
      expect(Number(claims.exp) - Number(claims.iat)).toBe(2 * 3600);
      expect(new Date(body.expires_at).getTime()).toBe(Number(claims.exp) * 1000);
      expect(Number(claims.exp) * 1000).toBeGreaterThanOrEqual(before + 2 * 3600_000 - 1000);
    });

    test("the access token authenticates GET /api/v1/auth/me; without credentials it is 401 without a Basic challenge", async () => {
      const ok = await me(admin.token);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ id: admin.user.id, username: "Admin", role: "admin" });
      expect(JSON.stringify(ok.body)).not.toContain("argon2");

      const anonymous = await server().json("GET", "/api/v1/auth/me");
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ error: "Unauthorized", message: expect.any(String) });
      expect(anonymous.headers.get("www-authenticate")).toBeNull();
    });

    test("a token we sign ourselves with the configured secret and HS256 is accepted (the forging helper is sound)", async () => {
      expect((await me(forgeJwt({ alg: "HS256", typ: "JWT" }, claimsFor()))).status).toBe(200);
    });

    test("alg none, HS384 and HS512 tokens are rejected even with valid claims and the right secret", async () => {
      for (const alg of ["none", "HS384", "HS512"]) {
        const response = await me(forgeJwt({ alg, typ: "JWT" }, claimsFor()));
        expect({ alg, status: response.status }).toEqual({ alg, status: 401 });
      }
    });

    test("truncated tokens, tokens signed with another secret and expired tokens are 401", async () => {
      const now = Math.floor(Date.now() / 1000);
      const cases = {
        truncated: admin.token.slice(0, -5),
        "header only": admin.token.split(".")[0]!,
        "another secret": forgeJwt({ alg: "HS256" }, claimsFor(), "another-secret-another-secret-another-secret"),
        expired: forgeJwt({ alg: "HS256" }, claimsFor({ iat: now - 7200, exp: now - 60 })),
        "missing exp": forgeJwt({ alg: "HS256" }, { ...claimsFor(), exp: undefined }),
        garbage: "not-a-token",
      };
      for (const [name, token] of Object.entries(cases)) {
        const response = await me(token);
        expect({ name, status: response.status, error: response.body.error }).toEqual({ name, status: 401, error: "Unauthorized" });
      }
    });

    test("a token of a deleted user stops working at once", async () => {
      const id = await createUser(server(), admin.token, "short-lived");
      const session = await login(server(), "short-lived");
      expect((await me(session.token)).status).toBe(200);
      expect((await server().json("DELETE", `/api/v1/users/${id}`, undefined, bearer(admin.token))).status).toBe(204);
      expect((await me(session.token)).status).toBe(401);
    });

    test("unknown user and wrong password give the same 401 body", async () => {
      const unknown = await server().json("POST", "/api/v1/auth/login", { username: "nobody", password: PASSWORD });
      const wrong = await server().json("POST", "/api/v1/auth/login", { username: "Admin", password: "wrong password" });
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(unknown.body).toEqual(wrong.body);
      expect(unknown.body).toEqual({ error: "Unauthorized", message: "invalid username or password" });
    });

    test("unknown user and wrong password take comparable time (a dummy hash is verified)", async () => {
      const time = async (username: string) => {
        const started = performance.now();
        await server().json("POST", "/api/v1/auth/login", { username, password: "wrong password" });
        return performance.now() - started;
      };
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const unknown: number[] = [];
      const wrong: number[] = [];
      for (let i = 0; i < 5; i++) {
        unknown.push(await time(`ghost-${i}`));
        wrong.push(await time("Admin"));
      }
      // The suite uses the default Argon2 cost (tens of milliseconds); skipping the verification
      // for unknown users would make them answer in about a millisecond.
      expect(median(unknown)).toBeGreaterThan(median(wrong) * 0.5);
    });

    test("usernames match regardless of case (like Komga); the account keeps its own spelling", async () => {
      for (const username of ["admin", "ADMIN"]) {
        const response = await server().json("POST", "/api/v1/auth/login", { username, password: PASSWORD });
        expect(response.status).toBe(200);
        expect(response.body.user.username).toBe("Admin");
      }
      expect((await server().json("POST", "/api/v1/auth/login", { username: "admin", password: "correct horse battery!" })).status).toBe(401);
    });

    test("a disabled account answers a wrong password exactly like an unknown user; only the right password learns it is disabled", async () => {
      const id = await createUser(server(), admin.token, "dormant");
      expect((await server().json("PUT", `/api/v1/users/${id}`, { disabled: true }, bearer(admin.token))).status).toBe(200);
      const attempt = (username: string, password: string) => server().json("POST", "/api/v1/auth/login", { username, password });
      const wrong = await attempt("dormant", "not the password");
      const unknown = await attempt("nobody-at-all", "not the password");
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
      const right = await attempt("dormant", PASSWORD);
      expect(right.status).toBe(403);
      expect(right.body.error).toBe("AccountDisabled");
    });

    test("the login body is validated: missing fields are 400", async () => {
      const response = await server().json("POST", "/api/v1/auth/login", { username: "Admin" });
      expect(response.status).toBe(400);
    });

    test("passwords and tokens never reach the log", async () => {
      await Bun.sleep(20);
      const logs = server().logs.join("\n");
      expect(logs).not.toContain(PASSWORD);
      expect(logs).not.toContain(admin.token);
      expect(logs).not.toContain(admin.refresh_token);
    });
  },
  {
    // Real Argon2 cost for the timing comparison; login throttling out of the way.
    auth: { jwt_secret: TEST_JWT_SECRET, jwt_expiry_hours: 2, argon2_memory_cost: 19456, argon2_time_cost: 2, login_max_failures: 1000 },
  },
);

for (const kind of DATABASE_KINDS) {
  describe(`SERVICE_AUTH__JWT_SECRET [${kind}]`, () => {
    const FILE_SECRET = "the-secret-written-in-the-configuration-file-0123";
    const ENV_SECRET = "the-secret-given-in-the-environment-0123456789-abcdef";
    let instances: Instances;
    afterAll(() => instances?.stop());

    test("overrides the file's auth.jwt_secret: tokens signed with it are accepted, ones signed with the file's are not", async () => {
      instances = await instancesOnOneDatabase(kind, { auth: { ...TEST_AUTH, jwt_secret: FILE_SECRET } }, { SERVICE_AUTH__JWT_SECRET: ENV_SECRET });
      const server = await instances.start();
      const call = processClient(server.url);
      const setup = await call("POST", "/api/v1/setup", undefined, { username: "admin", email: "admin@example.org", password: PASSWORD });
      expect(setup.status).toBe(201);
      const login = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
      expect(login.status).toBe(200);
      const issued: string = login.body.token;
      const now = Math.floor(Date.now() / 1000);
      const claims = { ...decodeJwtPart(issued, 1), iat: now, exp: now + 600, jti: crypto.randomUUID() };
      // The server signs with the environment's secret ...
      expect(issued).toBe(forgeJwt(decodeJwtPart(issued, 0), decodeJwtPart(issued, 1), ENV_SECRET));
      // ... and accepts what that secret signs, never what the file's secret signs.
      const withEnvSecret = await call("GET", "/api/v1/auth/me", forgeJwt({ alg: "HS256", typ: "JWT" }, claims, ENV_SECRET));
      expect(withEnvSecret).toMatchObject({ status: 200, body: { username: "admin" } });
      const withFileSecret = await call("GET", "/api/v1/auth/me", forgeJwt({ alg: "HS256", typ: "JWT" }, claims, FILE_SECRET));
      expect(withFileSecret).toMatchObject({ status: 401, body: { error: "Unauthorized" } });
      expect(server.output()).not.toContain(ENV_SECRET);
      expect(server.output()).not.toContain(FILE_SECRET);
    }, 60_000);
  });
}
