/**
 * Single sign-on from the web login page, against a real OpenID provider (oidc-provider, in the
 * test process): /login renders one button per configured provider, each leading into that
 * provider's OIDC flow; in Chromium, the button, the provider's sign-in and consent forms and
 * the landing script end on the start page with a session.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { CLIENT_ID, CLIENT_SECRET, startIdentityProvider, TestBrowser } from "../auth/support/oidc-provider";
import { forEachDatabase } from "../helpers/server";
import { launchChromium, openPage } from "./browser";

const idp = await startIdentityProvider("test");
afterAll(() => idp.stop());

const PROVIDERS = [
  { id: "test", name: "Test IdP" },
  { id: "second", name: "Second <IdP> & Co" },
];

/** The single sign-on links of a rendered login page: [href, text]. */
function ssoLinks(html: string): [string, string][] {
  const section = /<div class="sso"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
  return [...section.matchAll(/<a [^>]*href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map((match) => [match[1]!, match[2]!]);
}

forEachDatabase(
  "single sign-on on the web login page",
  (server) => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
      // The page is for signing in: the first admin exists, as on any running server.
      await server().json("POST", "/api/v1/setup", { username: "admin", email: "admin@example.org", password: "correct horse" });
    });
    afterAll(() => browser?.close());

    test("/login renders a button per configured provider, each leading into that provider's authorization request", async () => {
      const response = await server().fetch("/login");
      expect(response.status).toBe(200);
      const links = ssoLinks(await response.text());
      expect(links).toEqual([
        ["/api/v1/auth/oidc/test/login", "Sign in with Test IdP"],
        ["/api/v1/auth/oidc/second/login", "Sign in with Second &lt;IdP&gt; &amp; Co"],
      ]);
      for (const [[href], provider] of links.map((link, index) => [link, PROVIDERS[index]!] as const)) {
        const followed = await new TestBrowser().get(`${server().url}${href}`);
        expect(followed.status).toBe(302);
        const authorization = new URL(followed.headers.get("location")!);
        expect(authorization.origin).toBe(idp.issuer);
        expect(authorization.searchParams.get("client_id")).toBe(CLIENT_ID);
        expect(authorization.searchParams.get("redirect_uri")).toBe(`${server().url}/api/v1/auth/oidc/${provider.id}/callback`);
        expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
      }
    });

    test("in Chromium: the button, the provider's forms and the landing script end signed in on the start page", async () => {
      idp.accounts.set("sub-web", { email: "webby@example.org", email_verified: true, preferred_username: "webby" });
      const { page, problems, close } = await openPage(browser, { baseURL: server().url });
      try {
        await page.goto("/login");
        await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
        // oidc-provider's development sign-in and consent forms.
        await page.waitForURL((url) => url.origin === idp.issuer);
        await page.locator("input[name=login]").fill("sub-web");
        await page.locator("input[name=password]").fill("any");
        await page.locator("button[type=submit]").click();
        await page.locator("button[type=submit]", { hasText: /continue/i }).click();
        await page.waitForURL((url) => url.origin === server().url && url.pathname === "/", { timeout: 15_000 });
        // No token left in the address bar, and the session cookie works for the pages.
        expect(page.url()).toBe(`${server().url}/`);
        const cookies = await page.context().cookies(server().url);
        expect(cookies.map((cookie) => cookie.name)).toContain("longbox_session");
        const account = await page.goto("/account");
        expect(account?.status()).toBe(200);
        expect(await page.content()).toContain("webby");
        expect(problems.pageErrors).toEqual([]);
        expect(problems.dialogs).toEqual([]);
      } finally {
        await close();
      }
    }, 30_000);
  },
  {
    auth: {
      oidc: {
        providers: PROVIDERS.map((provider) => ({ ...provider, issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })),
      },
    },
  },
);
