/**
 * Every route needs credentials unless it is one of the few the specification and contract
 * leave open. The route list comes from the application itself, so a new route that forgets
 * its `auth` option fails here; and an API key must open every protected route but those that
 * create credentials, which need an interactive sign-in (tests/auth/key-scopes.test.ts). Web pages
 * answer a person without a session with a redirect to the sign-in page instead of a 401.
 */
import { beforeAll, expect, test } from "bun:test";
import { createHttpApp } from "../../src/http/app";
import { adminSession, bearer } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";

/**
 * Routes open by design: health, first-run setup, the credential endpoints, OIDC, API docs, and
 * KOReader's register (always refused: accounts are made in Longbox).
 */
const OPEN = new Set([
  "GET /health",
  "POST /api/v1/setup",
  "POST /api/v1/auth/login",
  "POST /api/v1/auth/refresh",
  "POST /api/v1/auth/logout",
  "POST /api/v1/auth/register",
  "GET /api/v1/auth/verify-email",
  "POST /api/v1/auth/resend-verification",
  "GET /api/v1/auth/oidc/providers",
  "GET /api/v1/auth/oidc/:provider/login",
  "GET /api/v1/auth/oidc/:provider/callback",
  "GET /api/docs",
  "GET /api/docs/json",
  "GET /api/docs/scalar.js",
  "POST /koreader/users/create",
  // The web interface's assets (the readers' bundled code included), the web app's home-screen
  // icons, and the pages of signing in, first-run setup and registration.
  "GET /static/*",
  "GET /icons/*",
  "GET /login",
  "POST /login",
  "POST /login/token",
  "GET /setup",
  "POST /setup",
  "GET /register",
  "POST /register",
  "GET /register/resend",
  "POST /register/resend",
]);

/** Web pages (everything outside the API, OPDS and the operational endpoints). */
const isWebPage = (path: string) => !/^\/(api|opds|komga|koreader|sse|health|metrics)(\/|$)/.test(path);

const SAMPLE_ID = "01900000-0000-7000-8000-000000000000";

forEachDatabase("route protection", (server) => {
  let apiKey: string;
  let routes: { method: string; path: string }[];
  /** The routes whose writes create credentials (their access level says so). */
  const credentialRoutes = new Set<string>();

  beforeAll(async () => {
    const session = await adminSession(server());
    const created = await server().json("POST", "/api/v1/api-keys", { name: "route check" }, bearer(session.token));
    apiKey = created.body.key;
    const app = createHttpApp(server().server.services);
    routes = app.routes.map((route) => ({ method: route.method, path: route.path })).filter((route) => route.method !== "HEAD" && route.method !== "OPTIONS");
    for (const route of app.routes) {
      const access = (route.hooks.detail as Record<string, unknown> | undefined)?.["x-longbox-access"];
      if (route.method !== "GET" && (access === "credentials" || access === "admin-credentials")) credentialRoutes.add(`${route.method} ${route.path}`);
    }
  });

  const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, SAMPLE_ID).replace(/\*$/, "x");

  test("every route that is not open answers 401 without credentials", async () => {
    const protectedRoutes = routes.filter((route) => !OPEN.has(`${route.method} ${route.path}`));
    expect(protectedRoutes.length).toBeGreaterThan(20);
    expect(protectedRoutes).toContainEqual({ method: "GET", path: "/komga/api/v1/series" });
    for (const route of protectedRoutes) {
      const response = await server().fetch(concrete(route.path), { method: route.method, redirect: "manual" });
      const web = isWebPage(route.path);
      expect({ route: `${route.method} ${route.path}`, status: response.status, signIn: web && response.headers.get("location")?.startsWith("/login") }).toEqual({
        route: `${route.method} ${route.path}`,
        status: web ? 303 : 401,
        signIn: web ? true : false,
      });
      await response.body?.cancel();
    }
  });

  test("an admin's API key gets past authentication on every protected route but those that create credentials", async () => {
    expect([...credentialRoutes].sort()).toEqual([
      "POST /account/api-keys",
      "POST /account/koreader-key",
      "POST /account/password",
      "POST /admin/users",
      "POST /admin/users/:id/api-keys",
      "POST /admin/users/:id/password",
      "POST /api/v1/api-keys",
      "POST /api/v1/users",
      "POST /api/v1/users/me/koreader-key",
      "PUT /api/v1/auth/me/password",
      "PUT /api/v1/users/me/koreader-key",
    ]);
    for (const route of routes.filter((candidate) => !OPEN.has(`${candidate.method} ${candidate.path}`))) {
      const name = `${route.method} ${route.path}`;
      const response = await server().fetch(concrete(route.path), { method: route.method, headers: { "x-api-key": apiKey } });
      const refused = response.status === 401 || response.status === 403;
      expect({ route: name, refused }).toEqual({ route: name, refused: credentialRoutes.has(name) });
      // The scan stream never ends by itself: close it.
      await response.body?.cancel();
    }
  });
  test("every REST route answers a malformed id with 400, before looking anything up", async () => {
    const withIds = routes.filter((route) => route.path.startsWith("/api/v1/") && /:(id|[a-z]+Id)\b/.test(route.path));
    expect(withIds.length).toBeGreaterThan(20);
    for (const route of withIds) {
      const path = route.path.replace(/:(id|[a-z]+Id)\b/g, "not-a-uuid").replace(/:[A-Za-z]+/g, "1");
      const response = await server().fetch(path, { method: route.method, headers: { "x-api-key": apiKey } });
      expect({ route: `${route.method} ${route.path}`, status: response.status }).toEqual({ route: `${route.method} ${route.path}`, status: 400 });
      await response.body?.cancel();
    }
  });

  // Optional slices are mounted so that their routes are checked too.
}, { komga_api: { enabled: true } });
