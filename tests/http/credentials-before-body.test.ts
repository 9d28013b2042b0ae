/**
 * Credentials before body on every family of routes with a body (src/http/credentials-before-body.ts):
 * a stranger is answered without the body being read (a body that never ends still gets its
 * answer), and a credential is checked once per request, not once before the body and again in
 * the route's option (a wrong password would then count twice towards the login throttle).
 * The REST routes' 401/403 are also in hardening-bodies.test.ts, Komga's in komga/cookie-scope.test.ts.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, basic, createUser, PASSWORD } from "../helpers/auth";
import { endlessBody, fetchWithin } from "../helpers/request-bodies";
import { forEachDatabase } from "../helpers/server";

const SAMPLE_ID = "01900000-0000-7000-8000-000000000000";

/** application.trust_proxy is on: X-Forwarded-For chooses the client address the throttle counts. */
const from = (ip: string) => ({ "x-forwarded-for": ip });

forEachDatabase(
  "credentials before body",
  (server) => {
    beforeAll(async () => {
      const { token } = await adminSession(server());
      for (const name of ["rest-user", "komga-user"]) await createUser(server(), token, name);
    });

    /** Sends a body that never ends; the status, or "timeout" when the server waited for the body. */
    const strangerSends = async (method: string, path: string, headers: Record<string, string>) => {
      const response = await fetchWithin(`${server().url}${path}`, {
        method,
        redirect: "manual",
        headers,
        body: endlessBody(`{"page":1,"padding":"never ends`),
      });
      if (response === "timeout") return { path, status: "timeout", location: null };
      await response.body?.cancel();
      return { path, status: response.status, location: response.headers.get("location") };
    };

    test("a stranger's endless body gets its answer on REST, Komga, KOReader sync and web form routes", async () => {
      const json = { "content-type": "application/json" };
      const form = { "content-type": "application/x-www-form-urlencoded", origin: server().url };
      const answers = await Promise.all([
        strangerSends("PUT", `/api/v1/books/${SAMPLE_ID}/progress`, json),
        strangerSends("PATCH", `/komga/api/v1/books/${SAMPLE_ID}/read-progress`, json),
        strangerSends("PUT", "/koreader/syncs/progress", { ...json, accept: "application/vnd.koreader.v1+json" }),
        strangerSends("POST", `/series/${SAMPLE_ID}/read-state`, form),
      ]);
      expect(answers).toEqual([
        { path: `/api/v1/books/${SAMPLE_ID}/progress`, status: 401, location: null },
        { path: `/komga/api/v1/books/${SAMPLE_ID}/read-progress`, status: 401, location: null },
        { path: "/koreader/syncs/progress", status: 401, location: null },
        { path: `/series/${SAMPLE_ID}/read-state`, status: 303, location: "/login" },
      ]);
    });

    test("a wrong password on a REST route with a body counts once towards the login throttle", async () => {
      const post = (password: string) =>
        server().json("POST", "/api/v1/sharing-tags", { name: `once-${password.length}` }, { ...basic("rest-user", password), ...from("192.0.2.61") });
      // Two failures of the three allowed; counted twice, the second or the next request would be a 429.
      for (let i = 0; i < 2; i++) expect((await post("wrong password")).status).toBe(401);
      expect((await post(PASSWORD)).status).toBe(403);
    });

    test("a wrong password on a Komga route with a body counts once towards the login throttle", async () => {
      const post = (password: string) =>
        server().fetch("/komga/api/v1/series/list", {
          method: "POST",
          headers: { "content-type": "application/json", ...basic("komga-user", password), ...from("192.0.2.62") },
          body: JSON.stringify({}),
        });
      for (let i = 0; i < 2; i++) {
        const refused = await post("wrong password");
        expect(refused.status).toBe(401);
        await refused.body?.cancel();
      }
      const admitted = await post(PASSWORD);
      expect(admitted.status).toBe(200);
      await admitted.body?.cancel();
    });
  },
  {
    komga_api: { enabled: true },
    application: { trust_proxy: true },
    auth: { login_max_failures: 3, login_max_address_failures: 5, login_window_minutes: 1 },
  },
);
