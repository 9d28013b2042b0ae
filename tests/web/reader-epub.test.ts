/**
 * The EPUB reader end to end, in Debian's Chromium: a real EPUB opened from its book page, its
 * table of contents, a chapter, the font size and theme, the position saved as a locator and
 * resumed; and an EPUB whose XHTML carries scripts, which must never run as the site (no access
 * to the site's cookies, no call to /api/v1 with the user's session).
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { forEachDatabase } from "../helpers/server";
import {
  asAdmin,
  bookFrame,
  DESKTOP,
  oneChapterEpub,
  openFromBookPage,
  PHONE,
  progressOf,
  readerCodeBytes,
  readerLibrary,
  requestedPaths,
  SCREENSHOTS,
  useChromium,
  type ReaderLibrary,
} from "./reader-support";

const TIMEOUT = 120_000;
const browser = useChromium();

/** What an attacker's book would do if its scripts ran with the site's privileges (no `&` or `<`: it must stay well-formed XHTML). */
const PAYLOAD = `
  var origin = self.origin === "null" ? top.location.origin : self.origin;
  document.documentElement.setAttribute("data-ran", "WHERE");
  fetch(origin + "/__pwned?WHERE-cookie-" + encodeURIComponent(document.cookie));
  fetch(origin + "/api/v1/users/me", { credentials: "include" }).then(function (r) { return r.text(); })
    .then(function (t) { fetch(origin + "/__pwned?WHERE-api-" + encodeURIComponent(t.slice(0, 80))); });
  try { top.document.body.setAttribute("data-pwned", "WHERE"); } catch (e) {}`;

/** An EPUB 3 whose chapter carries an inline script, a script file and an event handler. */
function hostileEpub(path: string): void {
  const chapter = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Hostile chapter</title>
<script type="text/javascript">${PAYLOAD.replaceAll("WHERE", "inline")}</script>
<script type="text/javascript" src="evil.js"></script>
</head>
<body><h1>Hostile chapter</h1><p id="text">Harmless text on the page.</p>
<img src="missing.png" alt="" onerror="${PAYLOAD.replaceAll("WHERE", "handler").replaceAll('"', "&quot;").replaceAll("\n", " ")}"/>
</body></html>`;
  writeFileSync(
    path,
    oneChapterEpub(
      "urn:uuid:0b6f1c5e-7f0e-4b39-9d55-8b1e2f0c0a11",
      "Hostile Book",
      { href: "chapter.xhtml", mediaType: "application/xhtml+xml", content: chapter, properties: "scripted" },
      [{ href: "evil.js", mediaType: "application/javascript", content: PAYLOAD.replaceAll("WHERE", "file") }],
    ),
  );
}

async function epubReady(page: Page) {
  await page.waitForSelector("#epub-reader[data-ready]", { timeout: 20_000 });
}

forEachDatabase("EPUB reader", (server) => {
  let library: ReaderLibrary;
  beforeAll(async () => {
    library = await readerLibrary(server(), { "Alice/book.epub": "epub/stump/book.epub" }, async (root) => {
      mkdirSync(join(root, "Hostile"), { recursive: true });
      hostileEpub(join(root, "Hostile", "hostile.epub"));
    });
  }, TIMEOUT);

  test("table of contents, a chapter, font size and theme; the position is saved as a locator and resumed", async () => {
    const alice = library.books["book.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await openFromBookPage(page, alice.id, /^Read$/);
      await epubReady(page);
      const codeBytes = await readerCodeBytes(page);
      console.log(`EPUB reader code: ${codeBytes} bytes gzipped`);
      expect(codeBytes).toBeGreaterThan(0);
      expect(codeBytes).toBeLessThan(60_000);

      await page.getByRole("button", { name: "Contents" }).click();
      const toc = page.getByRole("navigation", { name: "Table of contents" });
      await expect(toc.isVisible()).resolves.toBe(true);
      await toc.getByRole("button", { name: /Pool of Tears/ }).click();
      await expect(toc.isVisible()).resolves.toBe(false);
      await page.waitForFunction(() => document.querySelector("[data-role=chapter]")?.textContent?.includes("Pool of Tears"));
      const chapter = await bookFrame(page, "Pool of Tears");

      const fontSize = () => chapter.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
      const before = await fontSize();
      await page.click(".reader-menu > summary");
      await page.getByRole("button", { name: "Larger text" }).click();
      await page.getByRole("button", { name: "Larger text" }).click();
      await expect(page.locator("[data-role=font-size]").textContent()).resolves.toBe("120%");
      await page.waitForFunction(() => true);
      expect(await fontSize()).toBeGreaterThan(before * 1.15);
      await page.selectOption("select[data-setting=theme]", "dark");
      await page.selectOption("select[data-setting=font]", "sans");
      await page.click(".reader-menu > summary");
      const look = await chapter.evaluate(() => ({
        background: getComputedStyle(document.body).backgroundColor,
        font: getComputedStyle(document.querySelector("p") ?? document.body).fontFamily,
      }));
      expect(look.background).toBe("rgb(18, 18, 18)");
      expect(look.font).toContain("system-ui");
      await page.keyboard.press("ArrowRight");
      await page.screenshot({ path: join(SCREENSHOTS, `epub-dark-${server().kind}.png`) });

      // The position reaches the server as a locator holding the CFI, with a progression.
      const location = String(
        await page.waitForFunction(() => document.querySelector<HTMLElement>("#epub-reader")?.dataset.location).then((handle) => handle.jsonValue()),
      );
      let saved: Record<string, any> | null = null;
      for (let attempt = 0; attempt < 100 && saved?.locator?.locations?.cfi !== location; attempt++) {
        await Bun.sleep(50);
        saved = await progressOf(server(), library.adminToken, alice.id);
      }
      expect(saved?.locator?.locations?.cfi).toBe(location);
      expect(saved?.locator?.href).toContain(".xhtml");
      expect(saved?.progression).toBeGreaterThan(0);
      expect(saved?.progression).toBeLessThan(1);
      expect(saved?.percentage).toBeGreaterThan(0);
      expect(saved?.completed).toBe(false);

      // Leave and come back through the book page: the same place.
      await page.goto(`/books/${alice.id}`);
      await openFromBookPage(page, alice.id, /^Continue/);
      await epubReady(page);
      await expect(page.locator("#epub-reader").getAttribute("data-location")).resolves.toBe(location);
      await expect(page.locator("[data-role=chapter]").textContent()).resolves.toContain("Pool of Tears");
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);

  test("on a 375 px phone the EPUB reader fits the screen", async () => {
    const alice = library.books["book.epub"]!;
    await asAdmin(browser(), server(), PHONE, async ({ page, errors }) => {
      // Spine item 3 is chapter I.
      await page.goto(`/read/${alice.id}?page=3`);
      await epubReady(page);
      await bookFrame(page, "Down the Rabbit-Hole");
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      const location = () => page.locator("#epub-reader").getAttribute("data-location");
      const first = await location();
      await page.getByRole("button", { name: "Next page" }).click();
      await page.waitForFunction((before) => document.querySelector<HTMLElement>("#epub-reader")?.dataset.location !== before, first);
      const second = await location();
      // A key pressed with the focus in the book's text (its own document) turns the page too
      // (once the page-turn animation is over: foliate-js ignores turns while it slides).
      await Bun.sleep(1000);
      const shown = await bookFrame(page, "Rabbit");
      await shown.evaluate(() => document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft", bubbles: true })));
      await page.waitForFunction((before) => document.querySelector<HTMLElement>("#epub-reader")?.dataset.location !== before, second);
      await page.getByRole("button", { name: "Next page" }).click();
      await page.screenshot({ path: join(SCREENSHOTS, `epub-phone-${server().kind}.png`) });
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);

  test("an EPUB's scripts never run as the site: no cookie read, no API call with the user's session", async () => {
    const hostile = library.books["hostile.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ context, page, errors }) => {
      // A cookie that scripts of the site could read (the session cookie itself is HttpOnly).
      await context.addCookies([{ name: "probe", value: "site-secret", url: server().url }]);
      const requested = () => requestedPaths(server());
      await openFromBookPage(page, hostile.id, /^Read$/);
      await epubReady(page);
      const chapter = await bookFrame(page, "Harmless text on the page.");
      await Bun.sleep(1500);
      expect(await chapter.evaluate(() => document.documentElement.getAttribute("data-ran"))).toBeNull();
      expect(await page.evaluate(() => document.body.getAttribute("data-pwned"))).toBeNull();
      expect(requested().filter((path) => path.startsWith("/__pwned"))).toEqual([]);
      expect(requested().filter((path) => path.endsWith("/evil.js"))).toEqual([]);
      expect(requested().filter((path) => path.startsWith("/api/v1/users"))).toEqual([]);

      // Opened on its own, the chapter is not a page of the site either.
      await page.goto(`/api/v1/books/${hostile.id}/resource/OEBPS/chapter.xhtml`);
      await page.waitForLoadState("load");
      await Bun.sleep(1500);
      expect(requested().filter((path) => path.startsWith("/__pwned"))).toEqual([]);
      expect(requested().filter((path) => path.startsWith("/api/v1/users"))).toEqual([]);
      expect(errors.filter((error) => !error.startsWith("console:"))).toEqual([]);

      // The reader page allows only scripts carrying its nonce (not even the site's files
      // otherwise: its blob: copies inherit this policy), and frames only blob: copies.
      const readerPage = await page.request.get(`/read/${hostile.id}`);
      const directives = (readerPage.headers()["content-security-policy"] ?? "").split(";").map((directive) => directive.trim());
      const nonceRule = directives.find((directive) => directive.startsWith("script-src"));
      expect(nonceRule).toMatch(/^script-src 'nonce-[A-Za-z0-9+/=]+'$/);
      expect(directives).toContain("frame-src blob:");
      // Exactly: the site's page policy with the nonce rule, plus what foliate-js needs to show
      // the book's copies, and nothing that would let a script run (no worker-src or child-src falling back wider).
      const policy = (response: { headers(): Record<string, string> }) =>
        Object.fromEntries((response.headers()["content-security-policy"] ?? "").split(";").map((directive) => {
          const [name, ...sources] = directive.trim().split(/\s+/);
          return [name, sources];
        }));
      const site = policy(await page.request.get(`/books/${hostile.id}`));
      expect(site["script-src"]).toEqual(["'self'"]);
      expect(policy(readerPage)).toEqual({
        ...site,
        "script-src": [nonceRule!.slice("script-src ".length)],
        "style-src": [...site["style-src"]!, "'unsafe-inline'", "blob:"],
        "connect-src": [...site["connect-src"]!, "blob:"],
        "font-src": [...site["font-src"]!, "blob:", "data:"],
        "frame-src": ["blob:"],
        "media-src": ["'self'", "blob:"],
      });
    });
  }, TIMEOUT);
});
