/**
 * Getting around the web interface and finding books, in Chromium on each database (issue 32):
 * every library with its series count in the menu (beside the page and collapsible on a wide
 * screen, behind a Menu button on a phone, whose header stays one row), the home page's rows
 * (keep reading, on deck, recently added and updated series, recently read) each with a page
 * of its own, and the series grid and a series' books filtered by read status, genre, tag,
 * publisher, language, author and years, the filters kept in the URL.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { MIN_PASSWORD_LENGTH } from "../../src/auth/passwords";
import { adminSession, bearer, PASSWORD } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scanToCompletion } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { axeViolations, gzippedAssetBytes, launchChromium, openPage, overflowsHorizontally, screenshot, signIn, type WatchedPage } from "./browser";

/** Series of the "Comics" library: name -> the ComicInfo fields of each of its books. */
const COMICS: Record<string, Record<string, string | number>[]> = {
  Orbit: [1, 2, 3].map((number) => ({
    Series: "Orbit",
    Number: number,
    Year: 2001,
    Publisher: "Acme",
    Genre: "Science Fiction, Adventure",
    Tags: "space",
    Writer: "Jane Doe",
    LanguageISO: "en",
    Summary: "Far from home.",
  })),
  Crypt: [1, 2].map((number) => ({ Series: "Crypt", Number: number, Year: 1990, Publisher: "Gloom", Genre: "Horror", Writer: "John Roe", LanguageISO: "fr" })),
  Plain: [1, 2].map((number) => ({ Series: "Plain", Number: number })),
};

forEachDatabase("web browsing", (server: () => TestServer) => {
  let browser: Browser;
  let token: string;
  const libraryIds: Record<string, string> = {};
  const seriesIds: Record<string, string> = {};
  const bookIds: Record<string, string> = {};
  const opened: WatchedPage[] = [];

  const api = (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(token));
  const open = async (width = 1440, colorScheme: "light" | "dark" = "light") => {
    const watched = await openPage(browser, { baseURL: server().url, width, colorScheme });
    opened.push(watched);
    await signIn(watched.page, "admin", PASSWORD);
    return watched;
  };
  /** A page of each kind a signed-in admin can open. */
  const everyPage = async () => {
    const { body: users } = await api("GET", "/api/v1/users");
    return [
      "/",
      "/shelves/on-deck",
      `/libraries/${libraryIds.Comics}`,
      `/libraries/${libraryIds.Comics}?status=in-progress`,
      `/series/${seriesIds.Orbit}`,
      `/series/${seriesIds.Orbit}?view=list`,
      `/books/${bookIds["Orbit 1"]}`,
      `/series/${seriesIds.Orbit}/edit`,
      `/books/${bookIds["Orbit 1"]}/edit`,
      "/search?q=orbit",
      "/account",
      "/admin",
      "/admin/libraries",
      `/admin/libraries/${libraryIds.Comics}`,
      "/admin/users",
      `/admin/users/${users.data[0].id}`,
      "/admin/sharing-tags",
      "/admin/errors",
      "/admin/duplicates",
    ];
  };
  const cardTitles = (page: Page, container: string) => page.locator(`${container} .card-title`).allTextContents();

  beforeAll(async () => {
    browser = await launchChromium();
    token = (await adminSession(server())).token;
    let seed = 1;
    for (const [library, series] of Object.entries({ Comics: COMICS, Manga: { Tide: [{ Series: "Tide", Number: 1 }] } })) {
      const root = join(server().dir, "libraries", library);
      for (const [name, books] of Object.entries(series)) {
        for (const fields of books) await makeCbz(join(root, name, `${name} ${fields.Number}.cbz`), { pages: 4, seed: seed++, comicInfo: comicInfo(fields) });
      }
      libraryIds[library] = (await createLibrary(server(), bearer(token), { name: library, path: root })).id;
      await scanToCompletion(server(), token, libraryIds[library]!);
    }
    const { body: series } = await api("GET", "/api/v1/series?pageSize=50");
    for (const entry of series.data as { id: string; name: string }[]) seriesIds[entry.name] = entry.id;
    const { body: books } = await api("GET", "/api/v1/books?pageSize=50");
    for (const book of books.data as { id: string; seriesName: string; number: string }[]) bookIds[`${book.seriesName} ${Number(book.number)}`] = book.id;
    // Orbit 1 read (so Orbit 2 is on deck), Crypt 1 in progress (keep reading), Tide 1 opened
    // and left on its first page (not started: not kept reading).
    expect((await api("PUT", `/api/v1/books/${bookIds["Orbit 1"]}/progress`, { page: 4, completed: true })).status).toBeLessThan(300);
    expect((await api("PUT", `/api/v1/books/${bookIds["Crypt 1"]}/progress`, { page: 2 })).status).toBeLessThan(300);
    expect((await api("PUT", `/api/v1/books/${bookIds["Tide 1"]}/progress`, { page: 1 })).status).toBeLessThan(300);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  test("every library and its series count is in the menu beside the page, which collapses and stays collapsed", async () => {
    const { page } = await open();
    const menu = page.getByRole("navigation", { name: "Main" });
    const comics = menu.getByRole("link", { name: /^Comics/ });
    expect(await comics.textContent()).toMatch(/Comics\s+3 series/);
    expect(await menu.getByRole("link", { name: /^Manga/ }).textContent()).toMatch(/Manga\s+1 series/);
    const toggle = page.getByRole("button", { name: "Menu" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");

    await comics.click();
    await page.waitForURL((url) => url.pathname === `/libraries/${libraryIds.Comics}`);
    expect(await menu.getByRole("link", { name: /^Comics/ }).getAttribute("aria-current")).toBe("page");

    await toggle.click();
    expect(await menu.isVisible()).toBe(false);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await page.reload();
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Menu" }).getAttribute("aria-expanded")).toBe("false");
    await page.getByRole("button", { name: "Menu" }).click();
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(true);
  }, 60_000);

  test("on a phone the header is one row and the menu opens from it, closing when a library is chosen", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const { page } = await open(375, colorScheme);
      for (const path of ["/", `/libraries/${libraryIds.Comics}`, `/series/${seriesIds.Orbit}`, "/account", "/admin"]) {
        await page.goto(path);
        // One row: the header is no taller than its controls, and they all sit on the same line.
        const rows = await page.evaluate(() => {
          const header = document.querySelector(".site-header")!;
          const tops = Array.from(header.children, (child) => Math.round(child.getBoundingClientRect().top + child.getBoundingClientRect().height / 2));
          return { height: header.getBoundingClientRect().height, middles: new Set(tops).size };
        });
        expect({ path, height: rows.height <= 64, rows: rows.middles }).toEqual({ path, height: true, rows: 1 });
        expect({ path, overflow: await overflowsHorizontally(page) }).toEqual({ path, overflow: false });
      }
      await page.goto("/");
      const menu = page.getByRole("navigation", { name: "Main" });
      expect(await menu.isVisible()).toBe(false);
      await page.getByRole("button", { name: "Menu" }).click();
      expect(await menu.isVisible()).toBe(true);
      // It covers the page from the header to the bottom of the screen, not only as far as its links go.
      const box = (await menu.boundingBox())!;
      expect(Math.round(box.y + box.height)).toBe(page.viewportSize()!.height);
      if (server().kind === "sqlite") await screenshot(page, `menu-${colorScheme}-375`);
      await menu.getByRole("link", { name: /^Manga/ }).click();
      await page.waitForURL((url) => url.pathname === `/libraries/${libraryIds.Manga}`);
      expect(await page.getByRole("heading", { name: "Manga", level: 1 }).isVisible()).toBe(true);
      expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    }
  }, 90_000);

  test("the home page shows keep reading, on deck, recently added and updated series and recently read, each with a page of its own", async () => {
    const { page } = await open();
    await page.goto("/");
    const shelf = (name: string) => `section[aria-labelledby="shelf-${name}"]`;
    expect(await cardTitles(page, shelf("keep-reading"))).toEqual(["Crypt 1"]);
    // Orbit's next unread book; Crypt has a book in progress, so it is not on deck.
    expect(await cardTitles(page, shelf("on-deck"))).toEqual(["Orbit 2"]);
    expect((await cardTitles(page, shelf("recently-added-series"))).sort()).toEqual(["Crypt", "Orbit", "Plain", "Tide"]);
    expect((await cardTitles(page, shelf("recently-updated-series"))).sort()).toEqual(["Crypt", "Orbit", "Plain", "Tide"]);
    expect(await cardTitles(page, shelf("recently-read"))).toEqual(["Orbit 1"]);
    // Every book card marks an unread book; one in progress shows how far.
    expect(await page.locator(`${shelf("on-deck")} .card .unread-mark`).count()).toBe(1);
    expect(await page.locator(`${shelf("keep-reading")} .card progress`).getAttribute("value")).toBe("2");
    expect(await page.getByRole("heading", { name: "Home", level: 1 }).count()).toBe(1);

    await page.getByRole("link", { name: "See all: Recently added series" }).click();
    await page.waitForURL((url) => url.pathname === "/shelves/recently-added-series");
    expect(await page.getByRole("heading", { name: "Recently added series", level: 1 }).isVisible()).toBe(true);
    expect((await cardTitles(page, "#shelf-grid")).sort()).toEqual(["Crypt", "Orbit", "Plain", "Tide"]);
    expect((await page.goto("/shelves/nothing-like-this"))?.status()).toBe(404);
  }, 60_000);

  test("the home page loads under 60 KB of JavaScript and CSS, gzipped", async () => {
    const { page } = await open();
    await page.goto("/");
    const { files, bytes } = await gzippedAssetBytes(page);
    expect(files).toBeGreaterThanOrEqual(4);
    console.log(`home page JS+CSS: ${bytes} bytes gzipped`);
    expect(bytes).toBeLessThan(60 * 1024);
  });

  test("the series grid filters by read status, genre, tag, publisher, language, author and years, combined and kept in the URL", async () => {
    const { page } = await open();
    const library = `/libraries/${libraryIds.Comics}`;
    const grid = async () => (await cardTitles(page, "#series-grid")).sort();
    await page.goto(library);
    expect(await grid()).toEqual(["Crypt", "Orbit", "Plain"]);

    // Through the form (htmx swaps the grid and keeps the URL).
    await page.getByText("Filters", { exact: true }).click();
    await page.getByLabel("Genre").selectOption("Science Fiction");
    // The URL holds the filters chosen, and only those.
    await page.waitForURL((url) => url.search === `?sort=name%2Casc&genre=Science+Fiction`);
    await page.waitForFunction(() => document.querySelectorAll("#series-grid .card").length === 1);
    expect(await grid()).toEqual(["Orbit"]);
    expect(await page.locator("#series-count").textContent()).toBe("1 series");
    await page.getByLabel("Genre").selectOption("");
    await page.getByLabel("Unread").check();
    await page.waitForURL((url) => url.searchParams.getAll("status").join() === "unread" && !url.searchParams.has("genre"));
    await page.waitForFunction(() => document.querySelectorAll("#series-grid .card").length === 1);
    expect(await grid()).toEqual(["Plain"]);

    // Each filter alone, and combined, straight from a bookmarked URL.
    const cases: [string, string[]][] = [
      ["status=in-progress", ["Crypt", "Orbit"]],
      ["status=read", []],
      ["status=unread&status=in-progress", ["Crypt", "Orbit", "Plain"]],
      ["genre=science%20fiction", ["Orbit"]],
      ["tag=space", ["Orbit"]],
      ["publisher=gloom", ["Crypt"]],
      ["language=fr", ["Crypt"]],
      ["author=Jane%20Doe", ["Orbit"]],
      ["year_from=2000", ["Orbit"]],
      ["year_to=1999", ["Crypt"]],
      ["year_from=1980&year_to=2010", ["Crypt", "Orbit"]],
      ["status=in-progress&genre=horror&year_to=1995", ["Crypt"]],
      ["status=in-progress&genre=horror&year_from=1995", []],
    ];
    for (const [query, expected] of cases) {
      await page.goto(`${library}?${query}`);
      expect({ query, series: await grid() }).toEqual({ query, series: expected });
    }
    // The form shows what the URL chose.
    await page.goto(`${library}?status=in-progress&genre=horror&year_to=1995`);
    expect(await page.getByLabel("In progress").isChecked()).toBe(true);
    expect(await page.getByLabel("Genre").inputValue()).toBe("Horror");
    expect(await page.getByLabel("To year").inputValue()).toBe("1995");
    const refused = await page.goto(`${library}?status=sideways`);
    expect(refused?.status()).toBe(400);
    expect(await page.locator("main").textContent()).toContain("The request could not be understood.");
  }, 90_000);

  test("a series page shows what its books say together and its books as covers or a list, filtered from the URL", async () => {
    const { page } = await open();
    await page.goto(`/series/${seriesIds.Orbit}`);
    const meta = page.locator("main .meta");
    expect(await meta.textContent()).toMatch(/Writer\s*Jane Doe/);
    expect(await meta.textContent()).toMatch(/Genres\s*Adventure, Science Fiction/);
    expect(await meta.textContent()).toMatch(/Tags\s*space/);
    expect(await page.locator("main .summary").first().textContent()).toBe("Far from home.");
    // Covers by default, each marked unread or showing progress; Orbit 1 is read.
    expect(await cardTitles(page, "#book-grid")).toEqual(["Orbit 1", "Orbit 2", "Orbit 3"]);
    expect(await page.locator("#book-grid .unread-mark").count()).toBe(2);
    expect(await page.getByRole("link", { name: "Next: Orbit 2" }).isVisible()).toBe(true);

    await page.getByText("Filters", { exact: true }).click();
    await page.getByLabel("Unread").check();
    await page.waitForURL((url) => url.search === "?status=unread");
    await page.waitForFunction(() => document.querySelectorAll("#book-grid .card").length === 2);
    expect(await page.locator("#series-books-count").textContent()).toBe("2 books match these filters");
    // The list view keeps the filter.
    await page.getByRole("link", { name: "List", exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get("view") === "list" && url.searchParams.get("status") === "unread");
    expect(await page.locator(".book-row .title").allTextContents()).toEqual(["#2 · Orbit 2", "#3 · Orbit 3"]);
    await page.goto(`/series/${seriesIds.Orbit}?status=read&view=list`);
    expect(await page.locator(".book-row .title").allTextContents()).toEqual(["#1 · Orbit 1"]);
    await page.goto(`/series/${seriesIds.Crypt}?year_from=2000`);
    expect(await page.locator("#book-grid .card").count()).toBe(0);
  }, 60_000);

  test("searching a genre or a tag finds the series whose books carry it", async () => {
    const { page } = await open();
    await page.goto("/search?q=science%20fiction");
    expect(await page.locator("main .card-title").allTextContents()).toEqual(["Orbit"]);
    await page.goto("/search?q=SPACE");
    expect(await page.locator("main .card-title").allTextContents()).toEqual(["Orbit"]);
  }, 60_000);

  test("a book page leads to the previous and next books of its series", async () => {
    const { page } = await open();
    await page.goto(`/books/${bookIds["Orbit 2"]}`);
    await page.getByRole("link", { name: "Next: Orbit 3" }).click();
    await page.waitForURL((url) => url.pathname === `/books/${bookIds["Orbit 3"]}`);
    expect(await page.getByRole("link", { name: /^Next:/ }).count()).toBe(0);
    await page.getByRole("link", { name: "‹ Previous: Orbit 2" }).click();
    await page.waitForURL((url) => url.pathname === `/books/${bookIds["Orbit 2"]}`);
    await page.getByRole("link", { name: "‹ Previous: Orbit 1" }).click();
    await page.waitForURL((url) => url.pathname === `/books/${bookIds["Orbit 1"]}`);
    expect(await page.getByRole("link", { name: /Previous:/ }).count()).toBe(0);
  }, 60_000);

  test("every page has one h1, and landmarks of the same kind have distinct names", async () => {
    const { page } = await open();
    const pages = await everyPage();
    for (const path of pages) {
      await page.goto(path);
      const found = await page.evaluate(() => {
        const landmarks = Array.from(document.querySelectorAll("header, nav, main, aside, footer, [role=search], form[aria-label], section[aria-label], section[aria-labelledby]"));
        const nameOf = (element: Element) =>
          element.getAttribute("aria-label") ?? (element.getAttribute("aria-labelledby") ? document.getElementById(element.getAttribute("aria-labelledby")!)?.textContent?.trim() : "") ?? "";
        const keys = landmarks.map((element) => `${element.getAttribute("role") ?? element.tagName.toLowerCase()}:${nameOf(element)}`);
        return { h1: document.querySelectorAll("h1").length, repeated: keys.filter((key, index) => keys.indexOf(key) !== index) };
      });
      expect({ path, ...found }).toEqual({ path, h1: 1, repeated: [] });
    }
  }, 90_000);

  test("axe finds no critical or serious accessibility violation on any page, in either theme, wide or narrow", async () => {
    const pages = await everyPage();
    const found: string[] = [];
    for (const colorScheme of ["light", "dark"] as const) {
      for (const width of [1440, 375]) {
        const { page } = await open(width, colorScheme);
        for (const path of pages) {
          await page.goto(path);
          for (const violation of await axeViolations(page)) found.push(`${path} ${colorScheme} ${width}: ${violation}`);
        }
      }
    }
    expect(found).toEqual([]);
  }, 240_000);

  test("every field that sets a password asks for the server's minimum length, and the browser holds a shorter one back", async () => {
    const { page } = await open();
    const { body: users } = await api("GET", "/api/v1/users");
    for (const [path, label] of [
      ["/account", "New password"],
      ["/admin/users", "Password"],
      [`/admin/users/${users.data[0].id}`, "New password"],
    ] as const) {
      await page.goto(path);
      expect({ path, minlength: await page.getByLabel(label, { exact: true }).getAttribute("minlength") }).toEqual({ path, minlength: String(MIN_PASSWORD_LENGTH) });
    }
    await page.goto("/account");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel("New password", { exact: true }).fill("x".repeat(MIN_PASSWORD_LENGTH - 1));
    const tooShort = () => page.getByLabel("New password", { exact: true }).evaluate((input) => (input as HTMLInputElement).validity.tooShort);
    expect(await tooShort()).toBe(true);
    await page.getByLabel("New password", { exact: true }).fill("x".repeat(MIN_PASSWORD_LENGTH));
    expect(await tooShort()).toBe(false);
  }, 60_000);

  test("the new screens at 1440 and 375 px, light and dark, show their heading and cards within the screen's width (screenshots kept on SQLite)", async () => {
    /** Each screen's page, its one h1, and the titles of the cards it shows (each once) or the links it leads on with. */
    const screens: Record<string, { path: string; heading: string; cards: string[]; links?: string[] }> = {
      "browse-home": { path: "/", heading: "Home", cards: ["Crypt", "Crypt 1", "Orbit", "Orbit 1", "Orbit 2", "Plain", "Tide"] },
      "browse-shelf": { path: "/shelves/recently-added-series", heading: "Recently added series", cards: ["Crypt", "Orbit", "Plain", "Tide"] },
      "browse-library-filtered": { path: `/libraries/${libraryIds.Comics}?status=in-progress&genre=horror`, heading: "Comics", cards: ["Crypt"] },
      "browse-series": { path: `/series/${seriesIds.Orbit}`, heading: "Orbit", cards: ["Orbit 1", "Orbit 2", "Orbit 3"] },
      "browse-book": { path: `/books/${bookIds["Orbit 2"]}`, heading: "Orbit 2", cards: [], links: ["‹ Previous: Orbit 1", "Next: Orbit 3 ›"] },
    };
    for (const colorScheme of ["light", "dark"] as const) {
      for (const width of [1440, 375]) {
        const { page } = await open(width, colorScheme);
        for (const [name, screen] of Object.entries(screens)) {
          await page.goto(screen.path);
          await page.waitForLoadState("networkidle");
          const shown = await page.evaluate(() => {
            const fits = (element: Element) => {
              const box = element.getBoundingClientRect();
              return box.width > 0 && box.height > 0 && box.left >= 0 && box.right <= document.documentElement.clientWidth;
            };
            const cards = Array.from(document.querySelectorAll("main .card"));
            return {
              headings: Array.from(document.querySelectorAll("h1"), (heading) => heading.textContent?.trim()),
              cards: [...new Set(cards.map((card) => card.querySelector(".card-title")?.textContent?.trim()))].sort(),
              // A row of cards scrolls sideways by design: the row, not each card, must fit.
              cardsOutside: cards.filter((card) => !fits(card.closest(".card-row") ?? card)).length,
            };
          });
          const links = [];
          for (const link of screen.links ?? []) links.push(await page.getByRole("link", { name: link, exact: true }).isVisible());
          const where = `${name} ${colorScheme} ${width}`;
          expect({ where, ...shown, links, overflow: await overflowsHorizontally(page) }).toEqual({
            where,
            headings: [screen.heading],
            cards: screen.cards,
            cardsOutside: 0,
            links: (screen.links ?? []).map(() => true),
            overflow: false,
          });
          if (server().kind === "sqlite") await screenshot(page, `${name}-${colorScheme}-${width}`);
        }
      }
    }
  }, 120_000);

  test("no page opened here logged a script error or opened a dialog", () => {
    for (const { problems } of opened) {
      // The refused filter (400) and the missing shelf (404) answered so on purpose.
      expect({ ...problems, consoleErrors: problems.consoleErrors.filter((message) => !/status of (400|404)/.test(message)) }).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
    }
  });
});
