import { beforeAll, expect, test } from "bun:test";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { adminSession, basic, createUser, PASSWORD } from "../helpers/auth";

/**
 * application.trust_proxy is on in this suite, so X-Forwarded-For chooses the client IP: the
 * last hop, which the trusted proxy appended after whatever the client itself claimed.
 * Limits here: 3 failures per address and account (and the account's soft limit), 5 per address.
 */
const from = (ip: string, claimed = "10.0.0.1") => ({ "x-forwarded-for": `${claimed}, ${ip}` });
const attempt = (server: TestServer, username: string, password: string, ip: string) =>
  server.json("POST", "/api/v1/auth/login", { username, password }, from(ip));

forEachDatabase(
  "failed-login throttling",
  (server) => {
    beforeAll(async () => {
      const { token } = await adminSession(server());
      for (const name of ["victim", "neighbour", "basic-user", "pair-user", "Casey", "opds-reader", "komga-reader", "owner"]) await createUser(server(), token, name);
    });

    test("failures for one account from many addresses do not lock its owner out: the right password from an address that has not failed passes", async () => {
      for (let i = 1; i <= 4; i++) expect((await attempt(server(), "victim", "wrong password", `198.51.100.${i}`)).status).toBe(401);
      // The owner, from their own address, signs in.
      expect((await attempt(server(), "victim", PASSWORD, "198.51.100.200")).status).toBe(200);
      // An address that failed for the account is refused while the account is over its limit, even with the right password.
      const blocked = await attempt(server(), "victim", PASSWORD, "198.51.100.1");
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toBe("TooManyRequests");
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Each further address gets one guess: after a wrong one, that address is refused too.
      expect((await attempt(server(), "victim", "another guess", "198.51.100.77")).status).toBe(401);
      expect((await attempt(server(), "victim", PASSWORD, "198.51.100.77")).status).toBe(429);
      // The owner's address is still fine, and another account is unaffected.
      expect((await attempt(server(), "victim", PASSWORD, "198.51.100.200")).status).toBe(200);
      expect((await attempt(server(), "neighbour", PASSWORD, "198.51.100.1")).status).toBe(200);
    });

    // Issue #27, item 6: failures spread over many addresses must not turn one typo of the
    // owner into a lock of the owner's own address for the whole window.
    test("an address that signed in to the account is spared the account-wide limit: a typo there does not lock the owner out", async () => {
      const home = "198.51.100.210";
      expect((await attempt(server(), "owner", PASSWORD, home)).status).toBe(200);
      for (let i = 1; i <= 4; i++) expect((await attempt(server(), "owner", "wrong password", `198.51.100.${20 + i}`)).status).toBe(401);
      // One typo at home, then the right password: signed in.
      expect((await attempt(server(), "owner", "a typo", home)).status).toBe(401);
      expect((await attempt(server(), "owner", PASSWORD, home)).status).toBe(200);
      // An address that never signed in still gets one guess while the account is over its limit.
      const stranger = "198.51.100.211";
      expect((await attempt(server(), "owner", "a guess", stranger)).status).toBe(401);
      expect((await attempt(server(), "owner", PASSWORD, stranger)).status).toBe(429);
      // The trusted address's own limit still holds.
      for (let i = 0; i < 3; i++) expect((await attempt(server(), "owner", "wrong again", home)).status).toBe(401);
      expect((await attempt(server(), "owner", PASSWORD, home)).status).toBe(429);
    });

    test("failures from one address for one account get 429 for that pair, even with the right password; the account from elsewhere is fine", async () => {
      const ip = "192.0.2.10";
      for (let i = 0; i < 3; i++) expect((await attempt(server(), "pair-user", "wrong password", ip)).status).toBe(401);
      expect((await attempt(server(), "pair-user", PASSWORD, ip)).status).toBe(429);
      expect((await attempt(server(), "neighbour", PASSWORD, ip)).status).toBe(200);
      expect((await attempt(server(), "pair-user", PASSWORD, "192.0.2.11")).status).toBe(200);
    });

    test("the account counts whatever the username's case", async () => {
      const ip = "192.0.2.30";
      for (const name of ["casey", "CASEY", "Casey"]) expect((await attempt(server(), name, "wrong password", ip)).status).toBe(401);
      expect((await attempt(server(), "cAsEy", PASSWORD, ip)).status).toBe(429);
    });

    test("repeated failures from one address get 429 whatever the username; other addresses are unaffected", async () => {
      const ip = "203.0.113.7";
      for (const name of ["ghost-1", "ghost-2", "ghost-3", "ghost-4", "ghost-5"]) {
        expect((await attempt(server(), name, "wrong password", ip)).status).toBe(401);
      }
      const blocked = await attempt(server(), "neighbour", PASSWORD, ip);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await attempt(server(), "neighbour", PASSWORD, "203.0.113.8")).status).toBe(200);
    });

    test("a client cannot dodge the per-address limit by claiming other addresses in X-Forwarded-For", async () => {
      const ip = "203.0.113.20";
      for (const [index, name] of ["spray-1", "spray-2", "spray-3", "spray-4", "spray-5"].entries()) {
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

    // A remembered Basic success (one Argon2 check per five minutes) must not answer before the
    // throttle: from a refused address, wrong guesses got a fast 429 and the right password 200.
    test("a remembered HTTP Basic success never answers for a refused address or account", async () => {
      const cases = [
        { username: "opds-reader", path: "/opds/v1.2/catalog", ip: "192.0.2.60" },
        { username: "komga-reader", path: "/komga/api/v2/users/me", ip: "192.0.2.61" },
      ];
      for (const { username, path, ip } of cases) {
        const get = (password: string, address = ip) => server().fetch(path, { headers: { ...basic(username, password), ...from(address) } });
        expect((await get(PASSWORD)).status).toBe(200);
        for (let i = 0; i < 3; i++) expect((await get("wrong guess")).status).toBe(401);
        // The address is refused for the account: the remembered right password is refused alike.
        expect((await get("another guess")).status).toBe(429);
        const remembered = await get(PASSWORD);
        expect(remembered.status).toBe(429);
        expect(remembered.headers.get("retry-after")).not.toBeNull();
        // The reader's other address still reads.
        expect((await get(PASSWORD, "192.0.2.62")).status).toBe(200);
      }
    });
  },
  { application: { trust_proxy: true }, komga_api: { enabled: true }, auth: { login_max_failures: 3, login_max_address_failures: 5, login_window_minutes: 1 } },
);
