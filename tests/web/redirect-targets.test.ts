/**
 * Where the web interface sends a browser after signing in (`next`): only a path of this site,
 * whatever the query holds, and never a 500. Through HTTP (GET /login signed in, POST /login,
 * both with and without htmx) and in Chromium (a signed-in visit to /login?next=..., and the
 * single sign-on landing script, which trades a login result in the fragment for the cookie).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { adminSession, login, PASSWORD } from "../helpers/auth";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { launchChromium, openPage, signIn } from "./browser";

/** Each of these leaves the site (or breaks a header) once a browser reads it as a Location. */
const FOREIGN = [
  "/\t/evil.example",
  "/\n/x",
  "/\r\n/x",
  "/\u0000/evil.example",
  "/ /evil.example",
  "/\u00a0/evil.example",
  "/\u2028/evil.example",
  "/\u007f/evil.example",
  "//evil.example",
  "/\\evil.example",
  "/\\/evil.example",
  "/.//evil.example",
  "/./\\evil.example",
  "\t//evil.example",
  " /x",
  "https://evil.example/",
  "http:/evil.example",
  "javascript:alert(1)",
  "evil.example",
  "",
];

/** Paths of the site, kept as they are (non-ASCII percent-encoded, as a Location must be). */
const LOCAL: [string, string][] = [
  ["/books/01900000-0000-7000-8000-000000000000?page=2#top", "/books/01900000-0000-7000-8000-000000000000?page=2#top"],
  ["/search?q=caf%C3%A9", "/search?q=caf%C3%A9"],
  ["/search?q=café", "/search?q=caf%C3%A9"],
  ["/admin/users", "/admin/users"],
];

function loginForm(server: TestServer, next: string, headers: Record<string, string> = {}) {
  return server.fetch("/login", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, ...headers },
    body: new URLSearchParams({ username: "admin", password: PASSWORD, next }).toString(),
  });
}

/** The path a redirect answer sends the browser to (Location, or HX-Redirect for htmx). */
function target(response: Response): string | null {
  return response.headers.get("location") ?? response.headers.get("hx-redirect");
}

forEachDatabase("sign-in redirects stay on the site", (server) => {
  let cookie: string;
  beforeAll(async () => {
    await adminSession(server());
    const signedIn = await loginForm(server(), "/");
    cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect(cookie).toStartWith("longbox_session=");
  });

  test("a foreign or malformed next sends the browser to the start page: 303 (or HX-Redirect), never 500", async () => {
    for (const next of FOREIGN) {
      const query = `/login?next=${encodeURIComponent(next)}`;
      const visit = await server().fetch(query, { headers: { cookie }, redirect: "manual" });
      expect([next, visit.status, target(visit)]).toEqual([next, 303, "/"]);
      const htmx = await server().fetch(query, { headers: { cookie, "hx-request": "true" }, redirect: "manual" });
      expect([next, htmx.status, htmx.headers.get("hx-redirect")]).toEqual([next, 200, "/"]);
      const posted = await loginForm(server(), next);
      expect([next, posted.status, target(posted)]).toEqual([next, 303, "/"]);
      const postedHtmx = await loginForm(server(), next, { "hx-request": "true" });
      expect([next, postedHtmx.status, postedHtmx.headers.get("hx-redirect")]).toEqual([next, 200, "/"]);
      // Signed out, the login page carries the decided target only (its form and the SSO landing read it).
      const form = await (await server().fetch(query)).text();
      expect([next, /name="next" value="([^"]*)"/.exec(form)?.[1]]).toEqual([next, "/"]);
    }
  });

  test("a path of the site is kept", async () => {
    for (const [next, expected] of LOCAL) {
      const visit = await server().fetch(`/login?next=${encodeURIComponent(next)}`, { headers: { cookie }, redirect: "manual" });
      expect([next, visit.status, target(visit)]).toEqual([next, 303, expected]);
      const posted = await loginForm(server(), next);
      expect([next, posted.status, target(posted)]).toEqual([next, 303, expected]);
    }
  });

  describeInChromium(server);
});

/** The same in a real browser, which is what reads `/\t/evil.example` as `//evil.example`. */
function describeInChromium(server: () => TestServer) {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  test("in Chromium: signed in, /login?next=/%09/evil.example lands on the site's start page", async () => {
    const { page, problems, close } = await openPage(browser, { baseURL: server().url });
    try {
      await signIn(page, "admin", PASSWORD);
      for (const next of ["/%09/evil.example", "/%5C/evil.example", "/.//evil.example"]) {
        await page.goto(`/login?next=${next}`);
        expect([next, page.url()]).toEqual([next, `${server().url}/`]);
      }
      expect(problems.pageErrors).toEqual([]);
    } finally {
      await close();
    }
  });

  test("in Chromium: the single sign-on landing goes to the next the server decided, not the raw query", async () => {
    const { page, problems, close } = await openPage(browser, { baseURL: server().url });
    try {
      const result = await login(server(), "admin");
      const landing = (next: string) => `/login?next=${next}#${new URLSearchParams({ token: result.token })}`;
      await page.goto(landing("/%09/evil.example"));
      await page.waitForURL((url) => url.hash === "" && url.pathname !== "/login", { timeout: 10_000 }).catch(() => {});
      expect(page.url()).toBe(`${server().url}/`);
      // A path of the site is still honoured.
      await page.context().clearCookies();
      await page.goto(landing(encodeURIComponent("/account")));
      await page.waitForURL((url) => url.pathname === "/account", { timeout: 10_000 });
      expect(problems.pageErrors).toEqual([]);
    } finally {
      await close();
    }
  });
}
