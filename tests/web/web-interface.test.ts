/**
 * The web interface end to end, in Debian's Chromium against a real server on each database:
 * first-run setup, signing out and in, adding a library through the form and watching its scan
 * progress arrive over SSE (then its thumbnails counted down to none), browsing to a series and
 * a book, live search, API keys, CSRF refusal, markup in file and folder names shown as text, a
 * non-admin who cannot reach the admin pages and does not see a series hidden by a sharing tag,
 * and every page at 375 px without horizontal scrolling. Screenshots of the main screens (light and dark) are saved
 * under test-output/screenshots.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { bearer, login, PASSWORD } from "../helpers/auth";
import { comicInfo, makeCbz } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { gzippedAssetBytes, launchChromium, openPage, overflowsHorizontally, screenshot, signIn, type WatchedPage } from "./browser";

const HOSTILE_FOLDER = "<img src=x onerror=alert(2)>";
// No number: a file name that parses as "<series> <number>" would name the folder's series
// (its only book's vote, docs/api.md "How a series is named and ordered").
const HOSTILE_FILE = "Evil <script>alert(1)<script>.cbz";

/** A library big enough that its scan reports progress more than once (events are throttled to 4 per second). */
async function writeLibrary(root: string): Promise<void> {
  let seed = 1;
  for (const series of ["Alpha", "Beta"]) {
    for (let number = 1; number <= 40; number++) {
      await makeCbz(join(root, series, `${series} ${String(number).padStart(3, "0")}.cbz`), { pages: 4, seed: seed++ });
    }
  }
  for (let number = 1; number <= 3; number++) {
    await makeCbz(join(root, "Secret Files", `Secret Files ${number}.cbz`), {
      seed: seed++,
      comicInfo: comicInfo({ Series: "Secret Files", Number: number, Title: `Classified ${number}` }),
    });
  }
  await makeCbz(join(root, HOSTILE_FOLDER, HOSTILE_FILE), { seed: seed++ });
}

forEachDatabase("web interface", (server: () => TestServer) => {
  let browser: Browser;
  let admin: WatchedPage;
  const opened: WatchedPage[] = [];
  let libraryRoot: string;
  let libraryId: string;
  let apiToken: string;
  const ids: Record<string, string> = {};

  const open = async (options: { width?: number; colorScheme?: "light" | "dark" } = {}) => {
    const watched = await openPage(browser, { baseURL: server().url, ...options });
    opened.push(watched);
    return watched;
  };
  const api = (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(apiToken));
  const takeScreenshots = () => server().kind === "sqlite";

  beforeAll(async () => {
    browser = await launchChromium();
    libraryRoot = join(server().dir, "libraries", "comics");
    mkdirSync(libraryRoot, { recursive: true });
    await writeLibrary(libraryRoot);
    admin = await open();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  test("first-run setup creates the admin, who can sign out and back in", async () => {
    const { page } = admin;
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/setup");
    if (takeScreenshots()) await screenshot(page, "setup-light");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Email").fill("admin@example.org");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create the administrator" }).click();
    // The URL follows the step: the first library comes next (tests/web/first-run.test.ts).
    await page.waitForURL((url) => url.pathname === "/setup/library");

    // Setup is over: the page now leads on (to the sign-in page, which sends a signed-in admin home).
    await page.goto("/setup");
    expect(new URL(page.url()).pathname).toBe("/");

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(await page.getByText("You are signed out.").isVisible()).toBe(true);
    // The ended session no longer opens any page.
    await page.goto("/account");
    expect(new URL(page.url()).pathname).toBe("/login");

    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await page.getByRole("alert").textContent()).toContain("Wrong username or password.");

    await signIn(page, "admin", PASSWORD);
    apiToken = (await login(server(), "admin", PASSWORD)).token;
  }, 60_000);

  test("the session cookie is HttpOnly and SameSite=Lax", async () => {
    const cookies = await admin.context.cookies();
    const session = cookies.find((cookie) => cookie.name === "longbox_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(await admin.page.evaluate(() => document.cookie)).not.toContain("longbox_session");
  });

  test("a library added through the form shows its scan progress live over SSE until it completes, then its thumbnails until they are made", async () => {
    const { page } = admin;
    await page.addInitScript(() => {
      document.addEventListener("htmx:sseOpen", () => ((window as unknown as { sseOpen: boolean }).sseOpen = true));
    });
    await page.goto("/admin/libraries");
    await page.getByLabel("Name").fill("Comics");
    // The folder picker: browse to the parent folder, then into the library's folder.
    await page.getByLabel("Folder on the server").fill(join(server().dir, "libraries"));
    await page.getByRole("button", { name: "Browse…" }).click();
    await page.getByRole("button", { name: "comics", exact: true }).click();
    await page.getByRole("button", { name: "Use this folder" }).click();
    await page.waitForFunction((expected) => (document.getElementById("library-path") as HTMLInputElement).value === expected, libraryRoot);
    await page.getByLabel("Scan it right away").uncheck();
    await page.getByRole("button", { name: "Add the library" }).click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "created");

    const { body: libraries } = await api("GET", "/api/v1/libraries");
    libraryId = libraries.find((library: { name: string }) => library.name === "Comics").id;
    await page.waitForFunction(() => (window as unknown as { sseOpen?: boolean }).sseOpen === true);

    // Record every state the progress area shows from now on, and every text of its line of
    // thumbnails still being made.
    await page.evaluate((id) => {
      const area = document.getElementById(`scan-${id}`)!;
      const seen: string[] = [];
      const thumbnailLines: string[] = [];
      Object.assign(window, { seen, thumbnailLines });
      new MutationObserver(() => {
        const state = area.querySelector("[data-status]");
        if (state) seen.push(`${state.getAttribute("data-status")}:${state.getAttribute("data-processed")}`);
        const line = /\d+ thumbnails still being made/.exec(area.textContent ?? "")?.[0] ?? "";
        if (line !== thumbnailLines.at(-1)) thumbnailLines.push(line);
      }).observe(area, { childList: true, subtree: true, characterData: true });
    }, libraryId);
    const section = page.locator("section.panel", { has: page.getByRole("heading", { name: "Comics" }) });
    await section.getByRole("button", { name: "Scan", exact: true }).click();
    await page.locator("#flash").getByText("Scan queued.").waitFor();
    await page.locator(`#scan-${libraryId} [data-status="completed"]`).waitFor({ timeout: 30_000 });

    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    // Only SSE events change this area: the page was never reloaded.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.some((state) => state.startsWith("running:"))).toBe(true);
    expect(seen.at(-1)).toBe("completed:84");
    const processed = seen.filter((state) => state.startsWith("running:")).map((state) => Number(state.split(":")[1]));
    expect(processed).toEqual([...processed].sort((a, b) => a - b));
    expect(await page.locator(`#scan-${libraryId}`).textContent()).toContain("84 added");
    // The card's counts, read when the library was added, follow the scan's end without a reload.
    await section.getByText("4 series · 84 books").waitFor({ timeout: 5_000 });
    // So does the line of thumbnails still being made, which the background queue counts down
    // after the scan: it goes once they are all made.
    const area = page.locator(`#scan-${libraryId}`);
    await area.getByText(/thumbnails still being made/).waitFor({ state: "detached", timeout: 60_000 });
    expect(await server().server.services.thumbnails.countPending()).toBe(0);
    const counts = (await page.evaluate(() => (window as unknown as { thumbnailLines: string[] }).thumbnailLines)).map((line) => Number(/^\d+/.exec(line)?.[0] ?? 0));
    // The scan ended with thumbnails still to make (84 at most); the line then only counted down, to none.
    const countdown = counts.slice(counts.findIndex((count) => count > 0));
    expect(countdown[0]).toBeGreaterThan(0);
    expect(countdown[0]).toBeLessThanOrEqual(84);
    expect(countdown.at(-1)).toBe(0);
    expect(countdown).toEqual([...countdown].sort((a, b) => b - a));
    expect(await area.textContent()).toContain("Last scan completed");
    await server().server.services.thumbnails.idle();
    if (takeScreenshots()) await screenshot(page, "admin-libraries-light");

    const { body: series } = await api("GET", `/api/v1/series?libraryId=${libraryId}&pageSize=50`);
    for (const entry of series.data as { id: string; name: string }[]) ids[entry.name] = entry.id;
    expect(Object.keys(ids).sort()).toEqual([HOSTILE_FOLDER, "Alpha", "Beta", "Secret Files"].sort());
  }, 120_000);

  test("browse from the home page to a series and a book, mark it read, and continue where reading stopped", async () => {
    const { page } = admin;
    await page.goto("/");
    expect(await page.getByRole("heading", { name: "Recently added" }).isVisible()).toBe(true);
    await page.getByRole("link", { name: "Comics" }).click();
    await page.waitForURL((url) => url.pathname === `/libraries/${libraryId}`);
    // Covers are lazy and sized, so the grid does not jump as they arrive.
    const cover = page.locator(".card img.cover").first();
    expect(await cover.getAttribute("loading")).toBe("lazy");
    expect(await cover.getAttribute("width")).toBe("200");
    expect(await cover.getAttribute("height")).toBe("300");

    // Sort and filter map to the series list's parameters, through htmx, with the URL kept.
    await page.getByLabel("Sort by").selectOption("name,desc");
    await page.waitForURL((url) => url.searchParams.get("sort") === "name,desc");
    await page.waitForFunction(() => document.querySelector("#series-grid .card-title")?.textContent === "Secret Files");
    await page.getByLabel("Filter by name").fill("alp");
    await page.waitForFunction(() => document.querySelectorAll("#series-grid .card").length === 1);
    expect(await page.locator("#series-grid .card-title").textContent()).toBe("Alpha");

    await page.locator("#series-grid .card", { hasText: "Alpha" }).click();
    await page.waitForURL((url) => url.pathname === `/series/${ids.Alpha}`);
    expect(await page.getByRole("heading", { name: "Alpha", level: 1 }).isVisible()).toBe(true);
    // The books show as covers; the list view shows each one's read state and actions.
    expect(await page.locator("#book-grid .card").count()).toBe(40);
    await page.getByRole("link", { name: "List", exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get("view") === "list");
    const titles = await page.locator(".book-row .title").allTextContents();
    expect(titles.slice(0, 3)).toEqual(["Alpha 001", "Alpha 002", "Alpha 003"].map((title) => expect.stringContaining(title)) as never);
    expect(titles).toHaveLength(40);

    // Mark a book as read from the series list (htmx swaps its row).
    const row = page.locator(".book-row", { hasText: "Alpha 002" });
    await row.getByRole("button", { name: "Mark as read" }).click();
    await row.getByRole("button", { name: "Mark as unread" }).waitFor();
    expect(await row.getByText("Read", { exact: true }).isVisible()).toBe(true);

    await page.locator(".book-row", { hasText: "Alpha 003" }).getByRole("link").click();
    await page.waitForURL((url) => url.pathname.startsWith("/books/"));
    const bookId = new URL(page.url()).pathname.split("/")[2]!;
    expect(await page.getByRole("link", { name: "Read", exact: true }).getAttribute("href")).toBe(`/read/${bookId}`);
    expect(await page.getByRole("link", { name: "Download" }).getAttribute("href")).toBe(`/api/v1/books/${bookId}/file`);
    if (takeScreenshots()) await screenshot(page, "book-light");

    expect((await api("PUT", `/api/v1/books/${bookId}/progress`, { page: 3 })).status).toBeLessThan(300);
    await page.reload();
    expect(await page.getByRole("link", { name: "Continue (page 3)" }).getAttribute("href")).toBe(`/read/${bookId}?page=3`);
    await page.getByRole("button", { name: "Mark as read" }).click();
    await page.getByRole("button", { name: "Mark as unread" }).waitFor();
    const { body: progress } = await api("GET", `/api/v1/books/${bookId}/progress`);
    expect(progress).toMatchObject({ completed: true, page: 4 });
  }, 60_000);

  test("search shows live results while typing, and a full results page", async () => {
    const { page } = admin;
    await page.goto("/");
    await page.getByLabel("Search books and series").pressSequentially("Classified", { delay: 30 });
    const popup = page.locator("#search-popup");
    await popup.getByRole("link", { name: /Classified 2/ }).waitFor();
    expect(await popup.getByRole("link").filter({ hasText: "Classified" }).count()).toBe(3);
    await page.getByLabel("Search books and series").press("Enter");
    await page.waitForURL((url) => url.pathname === "/search" && url.searchParams.get("q") === "Classified");
    expect(await page.locator("main .card").count()).toBe(3);
  }, 30_000);

  test("an API key is shown once, works, and stops working when revoked", async () => {
    const { page } = admin;
    await page.goto("/account");
    await page.getByLabel("New key's name").fill("Panels on the tablet");
    await page.getByRole("button", { name: "Create a key" }).click();
    const key = (await page.locator("#new-api-key").textContent())!.trim();
    expect(key).toMatch(/^lbx_[0-9a-f]{16}_[0-9a-f]{32}$/);
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { "x-api-key": key })).status).toBe(200);
    if (takeScreenshots()) await screenshot(page, "account-light");

    // Shown once: a fresh page lists the key by its prefix only.
    await page.reload();
    expect(await page.locator("#new-api-key").count()).toBe(0);
    expect(await page.locator("#api-keys").textContent()).toContain(key.slice(0, 20));
    expect(await page.content()).not.toContain(key);

    await page.getByRole("button", { name: "Revoke Panels on the tablet" }).click();
    await page.getByText("No API keys.").waitFor();
    expect((await server().json("GET", "/api/v1/auth/me", undefined, { "x-api-key": key })).status).toBe(401);
  }, 30_000);

  test("the server page shows the catalogue's counts and cleans up unused thumbnails", async () => {
    const { page } = admin;
    await page.goto("/admin");
    expect(await page.locator(".stat", { has: page.getByText("Books", { exact: true }) }).locator("strong").textContent()).toBe("84");
    expect(await page.locator(".stat", { hasText: "Database" }).locator("strong").textContent()).toBe(server().kind === "postgres" ? "PostgreSQL" : "SQLite");
    // A server started moments ago has run for minutes, not "0.0 h".
    expect(await page.locator(".stat", { hasText: "Memory" }).textContent()).toMatch(/up \d+ minutes?$/);
    await page.getByRole("button", { name: "Clean up thumbnails" }).click();
    await page.getByText(/Removed \d+ unused images/).waitFor();
  }, 30_000);

  test("file and folder names with markup are shown as text and never run", async () => {
    const { page, problems } = admin;
    await page.goto(`/libraries/${libraryId}`);
    const card = page.locator(".card", { hasText: HOSTILE_FOLDER });
    expect(await card.locator(".card-title").textContent()).toBe(HOSTILE_FOLDER);
    await card.click();
    await page.waitForURL((url) => url.pathname === `/series/${ids[HOSTILE_FOLDER]}`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(HOSTILE_FOLDER);
    await page.locator("#book-grid .card").click();
    await page.waitForURL((url) => url.pathname.startsWith("/books/"));
    // The title parsed from the file name (a bracketed part is a release tag and goes).
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Evil <script>alert <script>");
    expect(await page.locator(".meta dd.mono").textContent()).toContain(HOSTILE_FILE);
    // Nothing from the names became an element.
    expect(await page.evaluate(() => document.querySelectorAll("img[onerror], img[src='x'], main script").length)).toBe(0);
    await page.goto(`/search?q=${encodeURIComponent("<script>")}`);
    expect(await page.locator("main .card").count()).toBe(1);
    expect(problems.dialogs).toEqual([]);
  }, 30_000);

  test("state changes from another origin, or without the CSRF token, are refused", async () => {
    const target = `${server().url}/account/api-keys`;
    const attacker = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          `<!doctype html><form id="f" method="post" action="${target}"><input name="name" value="forged"></form><script>document.getElementById("f").submit()</script>`,
          { headers: { "content-type": "text/html" } },
        ),
    });
    try {
      // Another port of the same host is the same site: the browser sends the Lax cookie along.
      const { page } = admin;
      const answer = page.waitForResponse((response) => response.url() === target);
      await page.goto(`http://127.0.0.1:${attacker.port}/`);
      expect((await answer).status()).toBe(403);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("403");

      // Our own origin, but no token.
      await page.goto("/account");
      const status = await page.evaluate(async () => {
        const response = await fetch("/account/api-keys", { method: "POST", body: new URLSearchParams({ name: "tokenless" }) });
        return response.status;
      });
      expect(status).toBe(403);
      // And the API refuses a cookie-authenticated change without the token too.
      const apiStatus = await page.evaluate(async () => (await fetch("/api/v1/api-keys", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "api tokenless" }) })).status);
      expect(apiStatus).toBe(403);
      const { body: keys } = await api("GET", "/api/v1/api-keys");
      expect(keys).toEqual([]);
    } finally {
      attacker.stop(true);
    }
  }, 30_000);

  test("a non-admin sees no admin pages, and a series hidden by a sharing tag is absent from every page", async () => {
    const { page } = admin;
    // The admin creates the reader, a tag, tags a series with it and denies it to the reader.
    await page.goto("/admin/users");
    await page.getByLabel("Username").fill("reader");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create the user" }).click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "created");
    await page.goto("/admin/sharing-tags");
    await page.getByLabel("Name").fill("grown-ups");
    await page.getByRole("button", { name: "Create the tag" }).click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "created");
    await page.goto(`/series/${ids["Secret Files"]}`);
    await page.getByLabel("grown-ups").check();
    await page.getByRole("button", { name: "Save the tags" }).click();
    await page.getByText("The sharing tags are saved.").waitFor();
    await page.goto("/admin/users");
    await page.getByRole("link", { name: "reader" }).click();
    await page.getByLabel("Access").selectOption("deny");
    await page.getByRole("button", { name: "Add the grant" }).click();
    await page.getByText("The sharing grants are changed.").waitFor();
    expect(await page.locator("main").textContent()).toContain("deny grown-ups");

    const reader = await open();
    await signIn(reader.page, "reader", PASSWORD);
    expect(await reader.page.locator(".site-nav").getByRole("link", { name: "Admin" }).count()).toBe(0);
    for (const path of ["/admin", "/admin/libraries", "/admin/users", `/admin/libraries/${libraryId}`]) {
      const response = await reader.page.goto(path);
      expect({ path, status: response?.status() }).toEqual({ path, status: 403 });
    }
    const adminPost = await reader.page.evaluate(async () => {
      const token = JSON.parse(document.body.getAttribute("hx-headers") ?? "{}")["X-CSRF-Token"];
      return (await fetch("/admin/sharing-tags", { method: "POST", headers: { "x-csrf-token": token }, body: new URLSearchParams({ name: "mine" }) })).status;
    });
    expect(adminPost).toBe(403);

    for (const path of ["/", `/libraries/${libraryId}`, "/search?q=Secret", "/search?q=Classified"]) {
      await reader.page.goto(path);
      const text = (await reader.page.locator("main").textContent()) ?? "";
      expect({ path, hidden: !text.includes("Secret Files") && !text.includes("Classified") }).toEqual({ path, hidden: true });
    }
    await reader.page.goto("/");
    await reader.page.getByLabel("Search books and series").pressSequentially("Secret", { delay: 30 });
    await reader.page.locator("#search-popup").getByText("Nothing matches").waitFor();
    expect((await reader.page.goto(`/series/${ids["Secret Files"]}`))?.status()).toBe(404);
    expect(await reader.page.locator("main").textContent()).toContain("This page or item does not exist");
    // The admin still sees it.
    await page.goto(`/libraries/${libraryId}`);
    expect(await page.locator(".card", { hasText: "Secret Files" }).count()).toBe(1);
    expect(reader.problems).toEqual({ consoleErrors: expect.any(Array), pageErrors: [], dialogs: [] });
    // The 403 and 404 pages log their status in the console; nothing else may.
    expect(reader.problems.consoleErrors.filter((message) => !/status of (403|404)/.test(message))).toEqual([]);
  }, 60_000);

  test("every page fits 375 px without horizontal scrolling, in light and dark, without script errors", async () => {
    const pages = [
      "/",
      `/libraries/${libraryId}`,
      `/series/${ids.Alpha}`,
      `/series/${ids[HOSTILE_FOLDER]}`,
      "/search?q=Alpha",
      "/account",
      "/admin",
      "/admin/libraries",
      `/admin/libraries/${libraryId}`,
      "/admin/users",
      "/admin/sharing-tags",
      "/admin/errors",
      "/admin/duplicates",
    ];
    const { body: books } = await api("GET", `/api/v1/series/${ids.Alpha}/books?pageSize=1`);
    pages.push(`/books/${books.data[0].id}`);
    const { body: users } = await api("GET", "/api/v1/users");
    pages.push(`/admin/users/${users.data.find((user: { username: string }) => user.username === "reader").id}`);

    for (const colorScheme of ["light", "dark"] as const) {
      const narrow = await open({ width: 375, colorScheme });
      await signIn(narrow.page, "admin", PASSWORD);
      for (const path of pages) {
        const response = await narrow.page.goto(path);
        expect({ path, status: response?.status() }).toEqual({ path, status: 200 });
        expect({ path, colorScheme, overflow: await overflowsHorizontally(narrow.page) }).toEqual({ path, colorScheme, overflow: false });
      }
      await narrow.page.goto("/account");
      // On a phone, signing out is in the menu behind the header's Menu button.
      await narrow.page.getByRole("button", { name: "Menu" }).click();
      await narrow.page.getByRole("button", { name: "Sign out", exact: true }).click();
      await narrow.page.waitForURL((url) => url.pathname === "/login");
      expect(await overflowsHorizontally(narrow.page)).toBe(false);
      expect(narrow.problems).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
      await narrow.close();
    }

  }, 120_000);

  test("a browse page loads under 100 KB of JavaScript and CSS, gzipped", async () => {
    const { page } = admin;
    await page.goto(`/libraries/${libraryId}`);
    const { files, bytes } = await gzippedAssetBytes(page);
    expect(files).toBeGreaterThanOrEqual(4);
    expect(bytes).toBeLessThan(100 * 1024);
  });

  test("screenshots of the main screens, light and dark, wide and narrow", async () => {
    if (!takeScreenshots()) return;
    const { body: books } = await api("GET", `/api/v1/series/${ids.Alpha}/books?pageSize=1`);
    const screens: Record<string, string> = {
      home: "/",
      library: `/libraries/${libraryId}`,
      series: `/series/${ids.Alpha}`,
      book: `/books/${books.data[0].id}`,
      search: "/search?q=Alpha",
      account: "/account",
      "admin-server": "/admin",
      "admin-libraries": "/admin/libraries",
      "admin-users": "/admin/users",
      "admin-errors": "/admin/errors",
    };
    const narrowScreens = ["home", "library", "series", "book"];
    for (const colorScheme of ["light", "dark"] as const) {
      for (const width of [1280, 375]) {
        const viewer = await open({ width, colorScheme });
        await viewer.page.goto("/login");
        await screenshot(viewer.page, `login-${colorScheme}-${width}`);
        await signIn(viewer.page, "admin", PASSWORD);
        for (const [name, path] of Object.entries(screens)) {
          if (width < 1000 && !narrowScreens.includes(name)) continue;
          await viewer.page.goto(path);
          // Lazy covers in view load with the page; give them a moment to paint.
          await viewer.page.waitForTimeout(200);
          await screenshot(viewer.page, `${name}-${colorScheme}-${width}`);
        }
        // The screens shot are the screens a person sees: none of them broke a script or opened a dialog.
        expect({ pageErrors: viewer.problems.pageErrors, dialogs: viewer.problems.dialogs }).toEqual({ pageErrors: [], dialogs: [] });
        await viewer.close();
      }
    }
  }, 180_000);

  test("no page the admin opened logged a script error or opened a dialog", () => {
    expect(admin.problems.pageErrors).toEqual([]);
    expect(admin.problems.dialogs).toEqual([]);
    // The refused CSRF attempts and the wrong password answered 401/403 on purpose.
    expect(admin.problems.consoleErrors.filter((message) => !/status of (401|403)/.test(message))).toEqual([]);
  });
});
