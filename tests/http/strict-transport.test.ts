/**
 * Strict-Transport-Security (issue 27, item 6): `max-age=31536000` on every answer to a request
 * that came over https (here: a trusted proxy's X-Forwarded-Proto), handlers' own Responses and
 * error answers alike; includeSubDomains only when configured; never over plain http, nor when
 * a proxy header that is not trusted claims https.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminSession, bearer } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { startTestServer, type TestServer } from "../helpers/server";

const HTTPS = { "x-forwarded-proto": "https" };

for (const kind of DATABASE_KINDS) {
  describe(`Strict-Transport-Security [${kind}]`, () => {
    const servers: Record<"trusted" | "subdomains" | "untrusted", TestServer> = {} as never;
    let token: string;
    beforeAll(async () => {
      servers.trusted = await startTestServer(kind, { application: { trust_proxy: true } });
      servers.subdomains = await startTestServer(kind, { application: { trust_proxy: true, hsts_include_subdomains: true } });
      servers.untrusted = await startTestServer(kind);
      token = (await adminSession(servers.trusted)).token;
    });
    afterAll(async () => {
      for (const server of Object.values(servers)) await server.stop();
    });

    const hstsOf = async (server: TestServer, path: string, headers: Record<string, string> = {}) => {
      const response = await server.fetch(path, { headers, redirect: "manual" });
      await response.body?.cancel();
      return response.headers.get("strict-transport-security");
    };

    test("over https: JSON answers, pages, static files and errors carry it, without includeSubDomains", async () => {
      const paths: [string, Record<string, string>][] = [
        ["/api/v1/auth/me", bearer(token)], // a handler's value
        ["/api/v1/auth/me", {}], // 401
        ["/api/v1/nowhere", {}], // 404
        ["/login", {}], // an HTML page (a Response)
        ["/", {}], // a redirect to sign in
        ["/static/css/app.css", {}],
        ["/health", {}],
      ];
      for (const [path, headers] of paths) {
        expect({ path, hsts: await hstsOf(servers.trusted, path, { ...HTTPS, ...headers }) }).toEqual({ path, hsts: "max-age=31536000" });
      }
    });

    test("includeSubDomains only when configured", async () => {
      expect(await hstsOf(servers.subdomains, "/login", HTTPS)).toBe("max-age=31536000; includeSubDomains");
      expect(await hstsOf(servers.subdomains, "/api/v1/auth/me", HTTPS)).toBe("max-age=31536000; includeSubDomains");
    });

    test("not over plain http, nor when an untrusted client claims https", async () => {
      expect(await hstsOf(servers.trusted, "/login")).toBeNull();
      expect(await hstsOf(servers.trusted, "/api/v1/auth/me", { "x-forwarded-proto": "http" })).toBeNull();
      expect(await hstsOf(servers.untrusted, "/login", HTTPS)).toBeNull();
      expect(await hstsOf(servers.untrusted, "/api/v1/auth/me", HTTPS)).toBeNull();
    });
  });
}
