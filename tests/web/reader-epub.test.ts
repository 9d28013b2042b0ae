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
  answersFor,
  asAdmin,
  bookFrame,
  DESKTOP,
  oneChapterEpub,
  openFromBookPage,
  PHONE,
  progressOf,
  readerCodeBytes,
  fetchedUrls,
  readerLibrary,
  requestedPaths,
  requestsFor,
  SCREENSHOTS,
  touchDragger,
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
    library = await readerLibrary(
      server(),
      {
        "Alice/book.epub": "epub/stump/book.epub",
        "Haruko/haruko.epub": "epub/idpf-built/haruko-jpeg.epub",
        "Wasteland/wasteland.epub": "epub/idpf-built/wasteland-woff-obf.epub",
      },
      async (root) => {
      mkdirSync(join(root, "Hostile"), { recursive: true });
      hostileEpub(join(root, "Hostile", "hostile.epub"));
      },
    );
  }, TIMEOUT);

  test("taps on the edges turn pages, the middle hides the bars, the position counts the book's positions; nothing asked for that the book lacks", async () => {
    const alice = library.books["book.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await page.goto(`/read/${alice.id}?page=3`);
      await epubReady(page);
      await bookFrame(page, "Down the Rabbit-Hole");
      const position = page.locator("[data-role=position]");
      const shownPosition = async () => {
        const match = /^[\d.]+% · page (\d+) of (\d+)$/.exec((await position.textContent()) ?? "");
        expect(match).not.toBeNull();
        return { at: Number(match![1]), of: Number(match![2]) };
      };
      const start = await shownPosition();
      // Readium's count: one position per 1024 bytes of each spine document.
      expect(start.of).toBeGreaterThan(100);
      const location = () => page.locator("#epub-reader").getAttribute("data-location");
      const moved = (before: string | null) =>
        page.waitForFunction((value) => document.querySelector<HTMLElement>("#epub-reader")?.dataset.location !== value, before);
      // The right third of the text goes forward, the left third back (after the page-turn animation).
      let before = await location();
      await page.mouse.click(1150, 400);
      await moved(before);
      expect((await shownPosition()).at).toBeGreaterThan(start.at);
      await Bun.sleep(800);
      before = await location();
      await page.mouse.click(130, 400);
      await moved(before);
      expect((await shownPosition()).at).toBe(start.at);
      // The middle hides the bars and shows them again.
      await page.mouse.click(640, 400);
      await expect(page.locator("#epub-reader.chrome-hidden").count()).resolves.toBe(1);
      await expect(position.isVisible()).resolves.toBe(false);
      await page.mouse.click(640, 400);
      await expect(position.isVisible()).resolves.toBe(true);

      // The font size shows after a reload, before and after the book opens.
      await page.click(".reader-menu > summary");
      // The size is kept on the server: reload once it is stored, as a person would a moment later.
      const stored = page.waitForResponse((response) => response.request().method() === "PATCH" && /\/reader-settings$/.test(new URL(response.url()).pathname));
      await page.getByRole("button", { name: "Larger text" }).click();
      expect((await stored).ok()).toBe(true);
      await expect(page.locator("[data-role=font-size]").textContent()).resolves.toBe("110%");
      await page.reload();
      await epubReady(page);
      await page.click(".reader-menu > summary");
      await expect(page.locator("[data-role=font-size]").textContent()).resolves.toBe("110%");
      expect(requestedPaths(server()).filter((path) => path.endsWith("/encryption.xml"))).toEqual([]);
      // A book that obfuscates its fonts declares it in META-INF/encryption.xml: that one is asked for.
      const readerHtml = async (id: string) => (await page.request.get(`/read/${id}`)).text();
      expect(await readerHtml(library.books["wasteland.epub"]!.id)).toContain('data-has-encryption="true"');
      expect(await readerHtml(alice.id)).toContain('data-has-encryption="false"');
      expect(errors).toEqual([]);
    });
    // The next test starts the book afresh, at the reader's own text size.
    await server().json("DELETE", `/api/v1/books/${alice.id}/progress`, undefined, { authorization: `Bearer ${library.adminToken}` });
    await server().json("PATCH", "/api/v1/reader-settings", { epubSize: null }, { authorization: `Bearer ${library.adminToken}` });
  }, TIMEOUT);

  test("a book opened afresh: the page carries the files foliate-js reads first and has the browser fetch the text start at once, each fetched once", async () => {
    const alice = library.books["book.epub"]!;
    await server().json("DELETE", `/api/v1/books/${alice.id}/progress`, undefined, { authorization: `Bearer ${library.adminToken}` });
    const resource = (path: string) => `/api/v1/books/${alice.id}/resource/${path}`;
    // What foliate-js reads first, one file after another (container, package, navigation): in the page, never asked of the server.
    const carried = ["META-INF/container.xml", "OEBPS/content.opf", "OEBPS/toc.xhtml"];
    // Then the cover page it opens at and what that links to: preloaded.
    const textStart = ["OEBPS/wrap0000.xhtml", "OEBPS/pgepub.css", "OEBPS/394382034267688847_cover.jpg"];
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      const preloadsOf = async (url: string) =>
        [...(await (await page.request.get(url)).text()).matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map((match) => match[1]);
      expect(await preloadsOf(`/read/${alice.id}`)).toEqual(textStart.map(resource));
      const opening = [...carried, ...textStart];
      const before = Object.fromEntries(opening.map((path) => [path, requestsFor(server(), resource(path))]));
      await page.goto(`/read/${alice.id}`);
      await epubReady(page);
      // The reader's own requests were answered by the preloads: one fetch of each, in the browser and at the server.
      const fetched = (await fetchedUrls(page, `/books/${alice.id}/resource/`)).map((url) => new URL(url).pathname);
      const expected = (path: string) => (carried.includes(path) ? 0 : 1);
      expect(opening.map((path) => ({ path, fetched: fetched.filter((url) => url === resource(path)).length }))).toEqual(opening.map((path) => ({ path, fetched: expected(path) })));
      expect(opening.map((path) => ({ path, requests: requestsFor(server(), resource(path)) - before[path]! }))).toEqual(opening.map((path) => ({ path, requests: expected(path) })));
      expect(errors).toEqual([]);
      // Another section asked for (?page=3): the page preloads that one.
      const { body: manifest } = await server().json("GET", `/api/v1/books/${alice.id}/manifest`, undefined, { authorization: `Bearer ${library.adminToken}` });
      expect(await preloadsOf(`/read/${alice.id}?page=3`)).toEqual([new URL(manifest.readingOrder[2].href, server().url).pathname]);
    });
  }, TIMEOUT);

  test("a book's page has the browser prefetch what the EPUB reader opens with, which the reader then takes from the browser's cache", async () => {
    // A book no test before this one has opened in the reader: no progress saved as a reader page went away can arrive late.
    const book = library.books["wasteland.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      const prefetched = () => page.$$eval("link[rel=prefetch]", (links) => links.map((link) => link.getAttribute("href")));
      // What the reader's page preloads for the book opened afresh (the test above).
      const preloads = [...(await (await page.request.get(`/read/${book.id}`)).text()).matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map((match) => match[1]!);
      expect(preloads.length).toBeGreaterThan(0);
      const before = preloads.map((path) => answersFor(server(), path).length);
      await page.goto(`/books/${book.id}`);
      expect(await prefetched()).toEqual(preloads);
      const answered = () => preloads.map((path, index) => answersFor(server(), path).slice(before[index]));
      for (let wait = 0; wait < 250 && answered().some((answers) => answers.length === 0); wait++) await Bun.sleep(20);
      expect(answered()).toEqual(preloads.map(() => [200]));

      await Promise.all([page.waitForURL((url) => url.pathname === `/read/${book.id}`), page.getByRole("link", { name: /^Read$/ }).first().click()]);
      await epubReady(page);
      // Asked for again by the reader's preloads, each was at most revalidated (304), never sent twice.
      expect(answered().map((answers) => answers.filter((status) => status !== 304))).toEqual(preloads.map(() => [200]));
      expect(errors).toEqual([]);

      // Resumed at a saved position (saved as the reader is left), the reader finds its place itself: nothing to prefetch.
      await page.goto("about:blank");
      for (let wait = 0; wait < 250 && (await progressOf(server(), library.adminToken, book.id)) === null; wait++) await Bun.sleep(20);
      expect(await progressOf(server(), library.adminToken, book.id)).not.toBeNull();
      await page.goto(`/books/${book.id}`);
      expect(await prefetched()).toEqual([]);
      // Nor for a browser that asks to save data.
      await server().json("DELETE", `/api/v1/books/${book.id}/progress`, undefined, { authorization: `Bearer ${library.adminToken}` });
      await page.setExtraHTTPHeaders({ "save-data": "on" });
      await page.goto(`/books/${book.id}`);
      expect(await prefetched()).toEqual([]);
    });
  }, TIMEOUT);

  test("a fixed-layout manga (right to left, images in the spine) fills the screen: spreads on a desktop, single pages and swipes on a phone", async () => {
    const haruko = library.books["haruko.epub"]!;
    await server().json("DELETE", `/api/v1/books/${haruko.id}/progress`, undefined, { authorization: `Bearer ${library.adminToken}` });
    /** Boxes of the book's pages on screen (frames shown), left to right. */
    const pageBoxes = (page: Page) =>
      Promise.all(
        page
          .frames()
          .filter((frame) => frame.url().startsWith("blob:"))
          .map((frame) =>
            frame
              .evaluate(() => {
                const box = frameElement!.getBoundingClientRect();
                return box.width > 0 ? { left: box.left, right: box.right, top: box.top, bottom: box.bottom, width: box.width, height: box.height } : null;
              })
              .catch(() => null),
          ),
      ).then((boxes) => boxes.filter((box) => box !== null).sort((a, b) => a.left - b.left));
    const position = (page: Page) => page.locator("[data-role=position]").textContent();
    await asAdmin(browser(), server(), { viewport: { width: 1440, height: 900 } }, async ({ page, errors }) => {
      await openFromBookPage(page, haruko.id, /^Read$/);
      await epubReady(page);
      await page.waitForFunction(() => /page 1 of 13$/.test(document.querySelector("[data-role=position]")?.textContent ?? ""));
      // Right to left: the left arrow goes forward, to the first two-page spread.
      await page.keyboard.press("ArrowLeft");
      await page.waitForFunction(() => /pages 2–3 of 13$/.test(document.querySelector("[data-role=position]")?.textContent ?? ""));
      let boxes: any[] = [];
      for (let wait = 0; wait < 50 && boxes.length < 2; wait++) {
        boxes = await pageBoxes(page);
        await Bun.sleep(100);
      }
      expect(boxes.length).toBe(2);
      for (const box of boxes) {
        // Fitted to the screen between the bars: far larger than a 300x150 crop, never past the edges.
        expect(box.height).toBeGreaterThan(650);
        expect(box.left).toBeGreaterThanOrEqual(0);
        expect(box.right).toBeLessThanOrEqual(1440);
      }
      expect(boxes[1].left).toBeGreaterThanOrEqual(boxes[0].right - 1);
      await page.screenshot({ path: join(SCREENSHOTS, `epub-fixed-spread-${server().kind}.png`) });
      // The left third goes forward in a right-to-left book.
      await page.mouse.click(100, 450);
      await page.waitForFunction(() => /pages 4–5 of 13$/.test(document.querySelector("[data-role=position]")?.textContent ?? ""));
      expect(errors).toEqual([]);
    });
    await asAdmin(browser(), server(), PHONE, async ({ context, page, errors }) => {
      await page.goto(`/read/${haruko.id}?page=2`);
      await epubReady(page);
      await page.waitForFunction(() => /page 2 of 13$/.test(document.querySelector("[data-role=position]")?.textContent ?? ""));
      const boxes = await pageBoxes(page);
      expect(boxes.length).toBe(1);
      expect(boxes[0]!.left).toBeGreaterThanOrEqual(0);
      expect(boxes[0]!.right).toBeLessThanOrEqual(375.5);
      expect(boxes[0]!.width).toBeGreaterThan(360);
      await page.screenshot({ path: join(SCREENSHOTS, `epub-fixed-phone-${server().kind}.png`) });
      // Swiping right brings the page on the left: the next one in a right-to-left book.
      const drag = await touchDragger(context, page);
      await drag({ x: 60, y: 400 }, { x: 320, y: 400 });
      await page.waitForFunction(() => /page 3 of 13$/.test(document.querySelector("[data-role=position]")?.textContent ?? ""));
      expect(await position(page)).toMatch(/^23% · page 3 of 13$/);
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);

  test("table of contents, a chapter, font size and theme; the position is saved as a locator and resumed", async () => {
    const alice = library.books["book.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      // Read, or Continue when the first test's position (saved as its page closed) has landed.
      await openFromBookPage(page, alice.id);
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
  test("the text size, font and theme follow the user to another browser", async () => {
    const alice = library.books["book.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await page.goto(`/read/${alice.id}?page=3`);
      await epubReady(page);
      await page.click(".reader-menu > summary");
      await page.selectOption("select[data-setting=theme]", "sepia");
      await page.selectOption("select[data-setting=font]", "serif");
      const size = Number.parseInt((await page.locator("[data-role=font-size]").textContent())!, 10);
      await page.getByRole("button", { name: "Smaller text" }).click();
      await expect(page.locator("[data-role=font-size]").textContent()).resolves.toBe(`${size - 10}%`);
      for (let wait = 0; wait < 100; wait++) {
        const stored = (await server().json("GET", "/api/v1/reader-settings", undefined, { authorization: `Bearer ${library.adminToken}` })).body;
        if (stored.epubTheme === "sepia" && stored.epubFont === "serif" && stored.epubSize === size - 10) break;
        await Bun.sleep(50);
      }
      expect(errors).toEqual([]);
      await asAdmin(browser(), server(), PHONE, async (phone) => {
        await phone.page.goto(`/read/${alice.id}?page=3`);
        await epubReady(phone.page);
        await expect(phone.page.locator("#epub-reader").getAttribute("data-theme")).resolves.toBe("sepia");
        await expect(phone.page.locator("select[data-setting=font]").inputValue()).resolves.toBe("serif");
        await phone.page.click(".reader-menu > summary");
        await expect(phone.page.locator("[data-role=font-size]").textContent()).resolves.toBe(`${size - 10}%`);
        const chapter = await bookFrame(phone.page, "Down the Rabbit-Hole");
        expect(await chapter.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(244, 236, 216)");
        expect(phone.errors).toEqual([]);
      });
    });
  }, TIMEOUT);
});
