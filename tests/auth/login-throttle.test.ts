import { beforeAll, expect, test } from "bun:test";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { adminSession, basic, createUser, PASSWORD } from "../helpers/auth";

/**
 * application.trust_proxy is on in this suite, so X-Forwarded-For chooses the client IP: the
 * last hop, which the trusted proxy appended after whatever the client itself claimed.
 */
const from = (ip: string, claimed = "10.0.0.1") => ({ "x-forwarded-for": `${claimed}, ${ip}` });
const attempt = (server: TestServer, username: string, password: string, ip: string) =>
  server.json("POST", "/api/v1/auth/login", { username, password }, from(ip));

forEachDatabase(
  "failed-login throttling",
  (server) => {
    beforeAll(async () => {
      const { token } = await adminSession(server());
      for (const name of ["victim", "neighbour", "basic-user"]) await createUser(server(), token, name);
    });

    test("repeated failures for one username get 429 with Retry-After, even from changing IPs, and even with the right password", async () => {
      for (let i = 1; i <= 3; i++) expect((await attempt(server(), "victim", "wrong password", `198.51.100.${i}`)).status).toBe(401);
      const blocked = await attempt(server(), "victim", PASSWORD, "198.51.100.9");
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toBe("TooManyRequests");
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Another account is unaffected.
      expect((await attempt(server(), "neighbour", PASSWORD, "198.51.100.10")).status).toBe(200);
    });

    test("repeated failures from one IP get 429 whatever the username; other IPs are unaffected", async () => {
      const ip = "203.0.113.7";
      for (const name of ["ghost-1", "ghost-2", "ghost-3"]) expect((await attempt(server(), name, "wrong password", ip)).status).toBe(401);
      const blocked = await attempt(server(), "neighbour", PASSWORD, ip);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await attempt(server(), "neighbour", PASSWORD, "203.0.113.8")).status).toBe(200);
    });

    test("a client cannot dodge the per-IP limit by claiming other addresses in X-Forwarded-For", async () => {
      const ip = "203.0.113.20";
      for (const [index, name] of ["spray-1", "spray-2", "spray-3"].entries()) {
        expect((await server().json("POST", "/api/v1/auth/login", { username: name, password: "wrong password" }, from(ip, `198.18.0.${index}`))).status).toBe(401);
      }
      const blocked = await server().json("POST", "/api/v1/auth/login", { username: "neighbour", password: PASSWORD }, from(ip, "198.18.0.99"));
      expect(blocked.status).toBe(429);
    });

    test("HTTP Basic password guesses count too", async () => {
      const headers = (password: string) => ({ ...basic("basic-user", password), ...from("192.0.2.50") });
      for (let i = 0; i < 3; i++) expect((await server().json("GET", "/api/v1/auth/me", undefined, headers("nope nope"))).status).toBe(401);
      const blocked = await server().json("GET", "/api/v1/auth/me", undefined, headers(PASSWORD));
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get("retry-after")).not.toBeNull();
    });
  },
  { application: { trust_proxy: true }, auth: { login_max_failures: 3, login_window_minutes: 1 } },
);
