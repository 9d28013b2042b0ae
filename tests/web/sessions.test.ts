/**
 * Browser sessions over HTTP: the cookie's attributes (Secure behind an https proxy), the OIDC
 * landing's token trade, and everything that ends a refresh-token family ending the browser
 * session too (logout, password reset, disabling, family revocation). Also self-service
 * registration through its page.
 */
import { beforeAll, expect, test } from "bun:test";
import { bearer, login, PASSWORD } from "../helpers/auth";
import { forEachDatabase, type TestServer } from "../helpers/server";

/** Signs in through the form; returns the cookie pair and the page's CSRF token. */
async function browserSignIn(server: TestServer, username: string, password = PASSWORD, headers: Record<string, string> = {}) {
  const response = await server.fetch("/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: server.url, ...headers },
    body: new URLSearchParams({ username, password }),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { setCookie, cookie: setCookie.split(";")[0]! };
}

async function pageStatus(server: TestServer, cookie: string, path = "/account"): Promise<number> {
  const response = await server.fetch(path, { headers: { cookie, accept: "text/html" }, redirect: "manual" });
  await response.body?.cancel();
  return response.status;
}

forEachDatabase(
  "browser sessions",
  (server) => {
    let adminToken: string;
    let userId: string;

    beforeAll(async () => {
      await server().json("POST", "/api/v1/setup", { username: "admin", password: PASSWORD });
      adminToken = (await login(server(), "admin")).token;
      const created = await server().json("POST", "/api/v1/users", { username: "reader", password: PASSWORD, role: "user" }, bearer(adminToken));
      userId = created.body.id;
    });

    test("the cookie is HttpOnly, SameSite=Lax, and Secure only over https (through a trusted proxy)", async () => {
      const plain = await browserSignIn(server(), "reader");
      expect(plain.setCookie).toMatch(/^longbox_session=cs_[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+ GMT; HttpOnly; SameSite=Lax$/);
      expect(plain.setCookie).not.toContain("Secure");
      const proxied = await browserSignIn(server(), "reader", PASSWORD, { "x-forwarded-proto": "https", origin: server().url.replace("http:", "https:") });
      expect(proxied.setCookie).toContain("; Secure");
    });

    test("signing out, a password reset, disabling the account and family revocation each end the session", async () => {
      const signedOut = await browserSignIn(server(), "reader");
      expect(await pageStatus(server(), signedOut.cookie)).toBe(200);
      const page = await (await server().fetch("/account", { headers: { cookie: signedOut.cookie } })).text();
      const csrf = /"X-CSRF-Token":"([^"]+)"/.exec(page)?.[1];
      expect(csrf).toBeDefined();
      const logout = await server().fetch("/logout", { method: "POST", headers: { cookie: signedOut.cookie, origin: server().url, "x-csrf-token": csrf! }, redirect: "manual" });
      expect(logout.status).toBe(303);
      expect(logout.headers.get("set-cookie")).toContain("Max-Age=0");
      expect(await pageStatus(server(), signedOut.cookie)).toBe(303);

      const reset = await browserSignIn(server(), "reader");
      expect((await server().json("PUT", `/api/v1/users/${userId}`, { password: "another password" }, bearer(adminToken))).status).toBe(200);
      expect(await pageStatus(server(), reset.cookie)).toBe(303);
      expect((await server().json("PUT", `/api/v1/users/${userId}`, { password: PASSWORD }, bearer(adminToken))).status).toBe(200);

      const disabled = await browserSignIn(server(), "reader");
      expect((await server().json("PUT", `/api/v1/users/${userId}`, { disabled: true }, bearer(adminToken))).status).toBe(200);
      expect((await server().json("PUT", `/api/v1/users/${userId}`, { disabled: false }, bearer(adminToken))).status).toBe(200);
      // Re-enabling does not revive it: the family was revoked.
      expect(await pageStatus(server(), disabled.cookie)).toBe(303);

      // The cookie's token is no refresh token: /refresh refuses it and the session goes on.
      const family = await browserSignIn(server(), "reader");
      const token = family.cookie.split("=")[1]!;
      expect((await server().json("POST", "/api/v1/auth/refresh", { refresh_token: token })).status).toBe(401);
      expect(await pageStatus(server(), family.cookie)).toBe(200);
    });

    test("the OIDC landing trades the fragment's access token for a session and revokes its refresh token", async () => {
      const result = await login(server(), "reader");
      const traded = await server().fetch("/login/token", {
        method: "POST",
        headers: { "content-type": "application/json", origin: server().url },
        body: JSON.stringify({ token: result.token, refresh_token: result.refresh_token }),
      });
      expect(traded.status).toBe(204);
      const cookie = traded.headers.get("set-cookie")!.split(";")[0]!;
      expect(await pageStatus(server(), cookie)).toBe(200);
      expect((await server().json("POST", "/api/v1/auth/refresh", { refresh_token: result.refresh_token })).status).toBe(401);

      const forged = await server().fetch("/login/token", {
        method: "POST",
        headers: { "content-type": "application/json", origin: server().url },
        body: JSON.stringify({ token: "not.a.token" }),
      });
      expect(forged.status).toBe(401);
      expect(forged.headers.get("set-cookie")).toBeNull();
      const crossSite = await server().fetch("/login/token", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://evil.example" },
        body: JSON.stringify({ token: result.token }),
      });
      expect(crossSite.status).toBe(403);
    });

    test("a sign-in form posted from another site is refused", async () => {
      const response = await server().fetch("/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: "https://evil.example" },
        body: new URLSearchParams({ username: "reader", password: PASSWORD }),
        redirect: "manual",
      });
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toStartWith("text/html");
      expect(response.headers.get("set-cookie")).toBeNull();
    });
  },
  { application: { trust_proxy: true }, auth: { refresh_token_enabled: true } },
);

forEachDatabase(
  "registration pages",
  (server) => {
    test("an account registered through the page is signed in at once when no email confirmation is needed", async () => {
      await server().json("POST", "/api/v1/setup", { username: "admin", password: PASSWORD });
      const page = await server().fetch("/register", { headers: { accept: "text/html" } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Create an account");
      const short = await server().fetch("/register", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: server().url },
        body: new URLSearchParams({ username: "newcomer", password: "short" }),
      });
      expect(short.status).toBe(422);
      expect(await short.text()).toContain("at least 8 characters");
      const registered = await server().fetch("/register", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: server().url },
        body: new URLSearchParams({ username: "newcomer", password: PASSWORD }),
        redirect: "manual",
      });
      expect(registered.status).toBe(303);
      const cookie = registered.headers.get("set-cookie")!.split(";")[0]!;
      const account = await (await server().fetch("/account", { headers: { cookie } })).text();
      expect(account).toContain("newcomer");
    });
  },
  { auth: { registration_enabled: true, email_confirmation_required: false } },
);

forEachDatabase("registration pages, registration off", (server) => {
  test("the page is not found", async () => {
    await server().json("POST", "/api/v1/setup", { username: "admin", password: PASSWORD });
    expect((await server().fetch("/register", { headers: { accept: "text/html" } })).status).toBe(404);
  });
});
