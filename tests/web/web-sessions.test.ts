/**
 * The web interface's session cookie is a cookie session with the rules of every credential
 * (src/auth/cookie-sessions.ts, src/auth/authenticator.ts): a password change made through the
 * API ends it, state changes made with it need the CSRF token, the account page changes the
 * password as PUT /api/v1/auth/me/password does, and a form sent by someone signed out is
 * redirected to /login before it is validated.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, bearer, createUser, login, PASSWORD, webSignIn } from "../helpers/auth";
import { forEachDatabase, type TestServer } from "../helpers/server";

const NEW_PASSWORD = "a fresh password 42";
const SAMPLE_ID = "01900000-0000-7000-8000-000000000000";

/** The CSRF token the account page carries for this session. */
async function csrfTokenOf(server: TestServer, cookie: string): Promise<string> {
  const page = await server.fetch("/account", { headers: { cookie } });
  expect(page.status).toBe(200);
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  expect(token).toBeDefined();
  return token!;
}

forEachDatabase("web session cookie", (server) => {
  let adminToken: string;

  beforeAll(async () => {
    adminToken = (await adminSession(server())).token;
  });

  test("the cookie opens the API like any credential, and a password change through the API ends it", async () => {
    const id = await createUser(server(), adminToken, "web-reader");
    const cookie = await webSignIn(server(), "web-reader");
    const me = await server().json("GET", "/api/v1/auth/me", undefined, { cookie });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(id);

    const session = await login(server(), "web-reader");
    const changed = await server().json("PUT", "/api/v1/auth/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, bearer(session.token));
    expect(changed.status).toBe(200);

    expect((await server().json("GET", "/api/v1/auth/me", undefined, { cookie })).status).toBe(401);
    const home = await server().fetch("/", { headers: { cookie }, redirect: "manual" });
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toStartWith("/login");
  });

  test("a session cookie's token and an API refresh token are each refused where the other belongs", async () => {
    await createUser(server(), adminToken, "kind-reader");
    const cookie = await webSignIn(server(), "kind-reader");
    const sessionToken = cookie.slice(cookie.indexOf("=") + 1);
    expect(sessionToken).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    // Rotating the session's token would hand a cookie holder tokens for the API without its CSRF check.
    const rotated = await server().json("POST", "/api/v1/auth/refresh", { refresh_token: sessionToken });
    expect(rotated.status).toBe(401);
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { cookie })).status).toBe(200);

    const { refresh_token } = await login(server(), "kind-reader");
    const asCookie = `${cookie.slice(0, cookie.indexOf("="))}=${refresh_token}`;
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { cookie: asCookie })).status).toBe(401);
  });

  test("a state change made with the cookie needs the session's CSRF token", async () => {
    await createUser(server(), adminToken, "csrf-reader");
    const cookie = await webSignIn(server(), "csrf-reader");
    const create = (headers: Record<string, string>) =>
      server().json("POST", "/api/v1/api-keys", { name: "from the browser" }, { cookie, origin: server().url, ...headers });
    expect((await create({})).status).toBe(403);
    expect((await create({ "x-csrf-token": "forged" })).status).toBe(403);
    expect((await create({ "x-csrf-token": await csrfTokenOf(server(), cookie) })).status).toBe(201);
  });

  test("the account page changes the password as the API does: other sessions and API keys end", async () => {
    await createUser(server(), adminToken, "form-reader");
    const cookie = await webSignIn(server(), "form-reader");
    const other = await login(server(), "form-reader");
    const key = await server().json("POST", "/api/v1/api-keys", { name: "automation" }, bearer(other.token));
    expect(key.status).toBe(201);
    const csrf = await csrfTokenOf(server(), cookie);
    const form = (fields: Record<string, string>) =>
      server().fetch("/account/password", {
        method: "POST",
        redirect: "manual",
        headers: { cookie, origin: server().url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });

    const wrong = await form({ currentPassword: "not my password", newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain("The current password is not right.");

    const changed = await form({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.status).toBe(303);
    const renewed = changed.headers.get("set-cookie")?.split(";")[0];
    expect(renewed).toStartWith("longbox_session=");
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { cookie: renewed! })).status).toBe(200);
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { cookie })).status).toBe(401);
    expect((await server().json("GET", "/api/v1/auth/me", undefined, bearer(other.token))).status).toBe(401);
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { "x-api-key": key.body.key })).status).toBe(401);
  });

  test("a form sent by someone signed out is sent to sign in, whatever it contains", async () => {
    for (const body of ["read=maybe", "", "x".repeat(10)]) {
      const response = await server().fetch(`/series/${SAMPLE_ID}/read-state`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server().url },
        body,
      });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/login");
    }
  });

  test("the cookie opens nothing in the slices that do not check its CSRF token: KOReader sync and the Komga API", async () => {
    await createUser(server(), adminToken, "cookie-only");
    const cookie = await webSignIn(server(), "cookie-only");
    const push = await server().fetch("/koreader/syncs/progress", {
      method: "PUT",
      headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ document: "0123456789abcdef0123456789abcdef", progress: "1", percentage: 0.1, device: "x" }),
    });
    expect(push.status).toBe(401);
    const komga = await server().fetch("/komga/api/v1/users/me", { headers: { cookie } });
    expect(komga.status).toBe(401);
    expect(komga.headers.getSetCookie()).toEqual([]);
  });
}, { komga_api: { enabled: true } });
