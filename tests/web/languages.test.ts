/**
 * The web interface in the reader's language (issue 35), in Debian's Chromium against a real
 * server on each database: `<html lang>` follows the browser's Accept-Language, the user's own
 * setting (the account page's select, or PATCH /api/v1/auth/me) wins over it, the server's
 * `application.default_locale` applies when neither names a catalog; and every main page, in
 * every language with a catalog (src/i18n/messages, new files included automatically), fits a
 * 375 px wide screen without horizontal scrolling. fonts-noto-cjk is installed
 * (scripts/test.sh) so Japanese and Chinese pages are measured as users see them.
 *
 * One language: `LONGBOX_TEST_LOCALES=fr bun test tests/web/languages.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { AVAILABLE_LOCALES } from "../../src/i18n/catalogs";
import { translatorFor } from "../../src/i18n/translator";
import { adminSession, bearer, PASSWORD } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, placeFixture, scanToCompletion } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { launchChromium, openPage, overflowsHorizontally, screenshot, signIn } from "./browser";

/** The languages to check: every catalog, or those LONGBOX_TEST_LOCALES names (comma-separated). */
const LOCALES = process.env.LONGBOX_TEST_LOCALES ? process.env.LONGBOX_TEST_LOCALES.split(",").filter((locale) => AVAILABLE_LOCALES.includes(locale)) : AVAILABLE_LOCALES;
/** A language other than English, when a translation is there. */
const OTHER = AVAILABLE_LOCALES.find((locale) => locale !== "en");

const htmlLang = async (response: Response) => /<html lang="([^"]+)"/.exec(await response.text())?.[1];

forEachDatabase("languages", (server: () => TestServer) => {
  let browser: Browser;
  let token: string;
  const paths: string[] = [];
  /** The first-run page in each language, read before the admin exists (it redirects afterwards). */
  const setupPageLangs: Record<string, string | undefined> = {};

  const api = (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(token));

  beforeAll(async () => {
    browser = await launchChromium();
    for (const locale of LOCALES) {
      setupPageLangs[locale] = await htmlLang(await server().fetch("/setup", { headers: { "accept-language": locale } }));
    }
    token = (await adminSession(server())).token;
    const root = join(server().dir, "libraries", "Comics");
    await makeCbz(join(root, "Orbit", "Orbit 1.cbz"), { pages: 3, seed: 1, comicInfo: comicInfo({ Series: "Orbit", Number: 1, Year: 2001, Summary: "Far from home." }) });
    placeFixture("epub/idpf-built/wasteland.epub", join(root, "Wasteland", "wasteland.epub"));
    const library = await createLibrary(server(), bearer(token), { name: "Comics", path: root });
    await scanToCompletion(server(), token, library.id);
    const { body: books } = await api("GET", "/api/v1/books?pageSize=10");
    const comic = books.data.find((book: { mediaType?: string; fileName?: string; title: string }) => !/wasteland/i.test(JSON.stringify(book)));
    const epub = books.data.find((book: { title: string }) => /wasteland/i.test(JSON.stringify(book)));
    const { body: users } = await api("GET", "/api/v1/users");
    paths.push(
      "/",
      `/libraries/${library.id}`,
      `/series/${comic.seriesId}`,
      `/series/${comic.seriesId}/edit`,
      `/books/${comic.id}`,
      `/books/${comic.id}/edit`,
      "/search?q=orbit",
      "/account",
      "/admin",
      "/admin/libraries",
      `/admin/libraries/${library.id}`,
      "/admin/users",
      `/admin/users/${users.data[0].id}`,
      "/admin/sharing-tags",
      "/admin/errors",
      "/admin/duplicates",
      "/collections",
      "/readlists",
      `/read/${comic.id}`,
      ...(epub ? [`/read/${epub.id}`] : []),
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  test("a visitor's pages take the browser's language, else the server's default (English)", async () => {
    for (const locale of LOCALES) {
      expect(setupPageLangs[locale]).toBe(locale);
      expect(await htmlLang(await server().fetch("/login", { headers: { "accept-language": `${locale};q=0.9, xx;q=1` } }))).toBe(locale);
    }
    expect(await htmlLang(await server().fetch("/login", { headers: { "accept-language": "xx-YY" } }))).toBe("en");
    expect(await htmlLang(await server().fetch("/login"))).toBe("en");
  });

  test("the user's language is their own setting over the API, validated, and null follows the browser", async () => {
    expect((await api("GET", "/api/v1/auth/me")).body.locale).toBeNull();
    const refused = await api("PATCH", "/api/v1/auth/me", { locale: "xx" });
    expect(refused.status).toBe(422);
    expect(refused.body.details.fields).toEqual({ locale: "is not a language with a catalog" });
    for (const locale of LOCALES) {
      const changed = await api("PATCH", "/api/v1/auth/me", { locale });
      expect(changed.status).toBe(200);
      expect(changed.body.locale).toBe(locale);
    }
    expect((await api("PATCH", "/api/v1/auth/me", { locale: null })).body.locale).toBeNull();
  });

  test("the account page's select sets the language, which wins over the browser's", async () => {
    const chosen = OTHER ?? "en";
    const watched = await openPage(browser, { baseURL: server().url });
    const { page } = watched;
    await page.setExtraHTTPHeaders({ "accept-language": "xx-YY" });
    await signIn(page, "admin", PASSWORD);
    await page.goto("/account");
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    await page.locator("#language").selectOption(chosen);
    await page.locator("form[action='/account/language'] button[type=submit]").click();
    await page.waitForURL((url) => url.pathname === "/account" && url.searchParams.get("notice") === "language-saved");
    expect(await page.locator("html").getAttribute("lang")).toBe(chosen);
    expect(await page.locator("#language").inputValue()).toBe(chosen);
    expect((await api("GET", "/api/v1/auth/me")).body.locale).toBe(chosen);
    // An error met on a page (a book that is not there) is shown in the user's language too.
    const missing = await page.goto("/books/01900000-0000-7000-8000-000000000000");
    expect(missing?.status()).toBe(404);
    expect(await page.locator("html").getAttribute("lang")).toBe(chosen);
    // So are the library's filters, every label of them.
    await page.goto(paths.find((path) => path.startsWith("/libraries/"))!);
    const { t } = translatorFor(chosen);
    for (const field of ["genre", "tag", "publisher", "language", "author"]) {
      expect(await page.locator(`label[for=filter-${field}]`).textContent()).toBe(t(`filterFields.${field}`));
    }
    await page.goto("/account");
    await page.locator("#language").selectOption("");
    await page.locator("form[action='/account/language'] button[type=submit]").click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "language-saved");
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    expect((await api("GET", "/api/v1/auth/me")).body.locale).toBeNull();
    await watched.close();
  }, 60_000);

  describe.each(LOCALES)("in %s", (locale) => {
    test("every main page fits 375 px without horizontal scrolling, and says its language", async () => {
      expect((await api("PATCH", "/api/v1/auth/me", { locale })).status).toBe(200);
      const watched = await openPage(browser, { baseURL: server().url, width: 375 });
      const { page } = watched;
      await page.setExtraHTTPHeaders({ "accept-language": locale });
      await page.goto("/login");
      expect(await overflowsHorizontally(page)).toBe(false);
      await signIn(page, "admin", PASSWORD);
      const overflowing: string[] = [];
      for (const path of paths) {
        await page.goto(path);
        expect(await page.locator("html").getAttribute("lang")).toBe(locale);
        if (await overflowsHorizontally(page)) overflowing.push(path);
        if (path === "/" || path === paths[2]) await screenshot(page, `languages-${locale}-${path === "/" ? "home" : "series"}-375`);
      }
      expect(overflowing).toEqual([]);
      expect([...watched.problems.pageErrors, ...watched.problems.consoleErrors]).toEqual([]);
      await watched.close();
      await api("PATCH", "/api/v1/auth/me", { locale: null });
    }, 120_000);
  });
});

forEachDatabase(
  "the server's default language",
  (server: () => TestServer) => {
    test("applies when the browser names no language with a catalog", async () => {
      expect(await htmlLang(await server().fetch("/setup", { headers: { "accept-language": "xx-YY" } }))).toBe(OTHER ?? "en");
      expect(await htmlLang(await server().fetch("/setup", { headers: { "accept-language": "en" } }))).toBe("en");
    });
  },
  { application: { default_locale: OTHER ?? "en" } },
);
