/**
 * Selecting several series or books in the web interface and acting on them at once (issues 32
 * and 33), in Chromium on each database: click and shift-click (also Shift+Space) select, "Select
 * all" takes the loaded covers, Clear; the bar marks read and unread, adds to a new or an
 * existing collection or read list (also one cover's own "Add to…"), re-analyzes (admins only);
 * keyboard only. What the bar did is checked through the REST API. A user cannot act on a series
 * a sharing tag hides from them, nor on unknown ids, an empty selection or a list they may not
 * change: each gets an error and changes nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { adminSession, bearer, createUser, login, PASSWORD, webSignIn } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scanToCompletion } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { launchChromium, openPage, overflowsHorizontally, screenshot, signIn, type WatchedPage } from "./browser";

/** Series -> number of books. "Secret" carries a sharing tag the user "reader" is denied. */
const SERIES = { Alpha: 3, Beta: 2, Gamma: 2, Secret: 1 };

forEachDatabase("web multi-select and bulk actions", (server: () => TestServer) => {
  let browser: Browser;
  let adminToken: string;
  let readerToken: string;
  let libraryId: string;
  const seriesIds: Record<string, string> = {};
  const bookIds: Record<string, string> = {};
  const opened: WatchedPage[] = [];

  const api = (token: string, method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(token));
  const open = async (username: string, width = 1440, colorScheme: "light" | "dark" = "light") => {
    const watched = await openPage(browser, { baseURL: server().url, width, colorScheme });
    opened.push(watched);
    await signIn(watched.page, username, PASSWORD);
    return watched;
  };
  const checkbox = (page: Page, name: string) => page.getByRole("checkbox", { name: `Select ${name}`, exact: true });
  const count = (page: Page, kind = "series") => page.locator(`#bulk-${kind} .bulk-count`).textContent();
  const checkedNames = (page: Page) =>
    page.locator(".card-select:checked").evaluateAll((boxes) => boxes.map((box) => box.getAttribute("aria-label")!.replace(/^Select /, "")));
  const notice = async (page: Page, text: string) => {
    await page.locator("#flash .notice", { hasText: text }).waitFor({ timeout: 10_000 }).catch(async () => {
      throw new Error(`no notice "${text}"; #flash holds: ${await page.locator("#flash").innerHTML()}`);
    });
  };
  const seriesOf = async (token: string, name: string) => (await api(token, "GET", `/api/v1/series/${seriesIds[name]}`)).body;
  const listItems = async (kind: "collections" | "readlists", name: string, token = adminToken) => {
    const { body } = await api(token, "GET", `/api/v1/${kind}?pageSize=100`);
    const list = (body.data as { id: string; name: string }[]).find((entry) => entry.name === name);
    if (!list) return undefined;
    const items = await api(token, "GET", `/api/v1/${kind}/${list.id}/${kind === "collections" ? "series" : "books"}?pageSize=100`);
    return (items.body.data as { name?: string; title?: string }[]).map((item) => item.name ?? item.title);
  };

  beforeAll(async () => {
    browser = await launchChromium();
    adminToken = (await adminSession(server())).token;
    const root = join(server().dir, "libraries", "Comics");
    let seed = 1;
    for (const [name, books] of Object.entries(SERIES)) {
      for (let number = 1; number <= books; number += 1) {
        await makeCbz(join(root, name, `${name} ${number}.cbz`), { pages: 3, seed: seed++, comicInfo: comicInfo({ Series: name, Number: number, Title: `${name} ${number}` }) });
      }
    }
    libraryId = (await createLibrary(server(), bearer(adminToken), { name: "Comics", path: root })).id;
    await scanToCompletion(server(), adminToken, libraryId);
    for (const entry of (await api(adminToken, "GET", "/api/v1/series?pageSize=50")).body.data as { id: string; name: string }[]) seriesIds[entry.name] = entry.id;
    for (const book of (await api(adminToken, "GET", "/api/v1/books?pageSize=50")).body.data as { id: string; title: string }[]) bookIds[book.title] = book.id;
    const tag = (await api(adminToken, "POST", "/api/v1/sharing-tags", { name: "grown-ups" })).body;
    expect((await api(adminToken, "PUT", `/api/v1/series/${seriesIds.Secret}/sharing-tags`, { sharingTagIds: [tag.id] })).status).toBe(200);
    const readerId = await createUser(server(), adminToken, "reader");
    expect((await api(adminToken, "PUT", `/api/v1/users/${readerId}/sharing-tags`, { sharingTagId: tag.id, accessMode: "deny" })).status).toBe(200);
    readerToken = (await login(server(), "reader")).token;
  }, 120_000);

  afterAll(async () => {
    for (const watched of opened) expect(watched.problems).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
    await browser?.close();
  });

  test("click selects a series, shift-click the range up to another, Select all every loaded cover, Clear none", async () => {
    const { page } = await open("admin");
    await page.goto(`/libraries/${libraryId}`);
    // Nothing selected: only "Select all" shows, no actions.
    expect(await page.getByRole("button", { name: "Mark read" }).isVisible()).toBe(false);
    await checkbox(page, "Alpha").click();
    expect(await count(page)).toBe("1 selected");
    await checkbox(page, "Gamma").click({ modifiers: ["Shift"] });
    expect(await checkedNames(page)).toEqual(["Alpha", "Beta", "Gamma"]);
    expect(await count(page)).toBe("3 selected");
    // A shift-click on a selected cover clears the range back to the last one clicked.
    await checkbox(page, "Beta").click({ modifiers: ["Shift"] });
    expect(await checkedNames(page)).toEqual(["Alpha"]);
    await page.getByRole("button", { name: "Clear" }).click();
    expect(await checkedNames(page)).toEqual([]);
    expect(await count(page)).toBe("");
    expect(await page.getByRole("button", { name: "Mark read" }).isVisible()).toBe(false);
    await page.getByRole("button", { name: "Select all" }).click();
    expect(await checkedNames(page)).toEqual(["Alpha", "Beta", "Gamma", "Secret"]);
    expect(await count(page)).toBe("4 selected");
    // The count is announced.
    expect(await page.locator("#bulk-series .bulk-count").getAttribute("aria-live")).toBe("polite");
  }, 60_000);

  test("marking series read marks all their books, the covers show it in place, and the REST API agrees", async () => {
    const { page } = await open("admin");
    await page.goto(`/libraries/${libraryId}`);
    await checkbox(page, "Alpha").click();
    await checkbox(page, "Beta").click();
    await page.getByRole("button", { name: "Mark read" }).click();
    await notice(page, "Marked 5 books of 2 series read.");
    // The changed covers were swapped in place: no unread badge, still selected.
    const alphaCard = page.locator(`#pick-series-${seriesIds.Alpha}`);
    expect(await alphaCard.locator(".badge.unread").count()).toBe(0);
    expect(await page.locator(`#pick-series-${seriesIds.Gamma} .badge.unread`).textContent()).toBe("2");
    expect(await checkedNames(page)).toEqual(["Alpha", "Beta"]);
    for (const name of ["Alpha", "Beta"]) expect((await seriesOf(adminToken, name)).booksReadCount).toBe(SERIES[name as "Alpha" | "Beta"]);
    expect((await seriesOf(adminToken, "Gamma")).booksReadCount).toBe(0);

    await page.getByRole("button", { name: "Mark unread" }).click();
    await notice(page, "Marked 5 books of 2 series unread.");
    expect(await alphaCard.locator(".badge.unread").textContent()).toBe("3");
    expect((await seriesOf(adminToken, "Alpha")).booksReadCount).toBe(0);
  }, 60_000);

  test("a series' books: mark read, and add to a new read list, then to an existing one, in the order selected on the page", async () => {
    const { page } = await open("admin");
    await page.goto(`/series/${seriesIds.Alpha}`);
    await checkbox(page, "Alpha 1").click();
    await checkbox(page, "Alpha 3").click();
    expect(await count(page, "books")).toBe("2 selected");
    await page.getByRole("button", { name: "Mark read" }).click();
    await notice(page, "Marked 2 books read.");
    expect(await page.locator(`#pick-books-${bookIds["Alpha 1"]} .unread-mark`).count()).toBe(0);
    expect(await page.locator(`#pick-books-${bookIds["Alpha 2"]} .unread-mark`).count()).toBe(1);
    expect((await api(adminToken, "GET", `/api/v1/books/${bookIds["Alpha 3"]}`)).body.readProgress?.completed).toBe(true);

    await page.getByRole("button", { name: "Add to read list…" }).click();
    const dialog = page.getByRole("dialog", { name: "Add 2 books to a read list" });
    await dialog.waitFor();
    await dialog.getByLabel("Name of the new read list").fill("Queue");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await notice(page, "Added 2 books to the read list “Queue”.");
    expect(await dialog.count()).toBe(0);
    expect(await listItems("readlists", "Queue")).toEqual(["Alpha 1", "Alpha 3"]);

    // One cover's own "Add to…", into the list that exists now.
    await page.getByRole("link", { name: "Add Alpha 2 to a read list" }).click();
    const single = page.getByRole("dialog", { name: "Add 1 book to a read list" });
    await single.getByRole("radio", { name: /Queue/ }).check();
    await single.getByRole("button", { name: "Add", exact: true }).click();
    await notice(page, "Added 1 book to the read list “Queue”.");
    expect(await listItems("readlists", "Queue")).toEqual(["Alpha 1", "Alpha 3", "Alpha 2"]);
  }, 60_000);

  test("series go into a new collection and then an existing one; a taken name is said in the dialog", async () => {
    const { page, problems } = await open("reader");
    await page.goto(`/libraries/${libraryId}`);
    // The reader does not see Secret.
    expect(await checkbox(page, "Secret").count()).toBe(0);
    await checkbox(page, "Beta").click();
    await checkbox(page, "Alpha").click();
    await page.getByRole("button", { name: "Add to collection…" }).click();
    const dialog = page.getByRole("dialog", { name: "Add 2 series to a collection" });
    await dialog.getByLabel("Name of the new collection").fill("Favourites");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await notice(page, "Added 2 series to the collection “Favourites”.");
    expect(await listItems("collections", "Favourites", readerToken)).toEqual(["Alpha", "Beta"]);

    await page.getByRole("link", { name: "Add Gamma to a collection" }).click();
    const single = page.getByRole("dialog", { name: "Add 1 series to a collection" });
    await single.getByRole("radio", { name: "A new collection" }).check();
    await single.getByLabel("Name of the new collection").fill("Favourites");
    await single.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("dialog").getByRole("alert").filter({ hasText: "The name is already in use." }).waitFor();
    // The browser logs the refused try's 409; nothing else went wrong.
    expect(problems.consoleErrors.splice(0)).toEqual([expect.stringContaining("the server responded with a status of 409 (Conflict)")]);
    await page.getByRole("dialog").getByRole("radio", { name: "Favourites" }).check();
    await page.getByRole("dialog").getByRole("button", { name: "Add", exact: true }).click();
    await notice(page, "Added 1 series to the collection “Favourites”.");
    expect(await listItems("collections", "Favourites", readerToken)).toEqual(["Alpha", "Beta", "Gamma"]);
  }, 60_000);

  test("Re-analyze is offered to admins only, and re-reads the selection's books", async () => {
    const reader = await open("reader");
    await reader.page.goto(`/libraries/${libraryId}`);
    await checkbox(reader.page, "Alpha").click();
    expect(await reader.page.getByRole("button", { name: "Mark read" }).isVisible()).toBe(true);
    expect(await reader.page.getByRole("button", { name: "Re-analyze" }).count()).toBe(0);

    const admin = await open("admin");
    await admin.page.goto(`/libraries/${libraryId}`);
    await checkbox(admin.page, "Alpha").click();
    await checkbox(admin.page, "Gamma").click();
    await admin.page.getByRole("button", { name: "Re-analyze" }).click();
    await notice(admin.page, "Re-analyzed 5 books.");
  }, 60_000);

  test("the bar by keyboard alone: Space selects, Shift+Space a range, Enter goes to the bar, Escape clears", async () => {
    const { page } = await open("admin");
    await page.goto(`/libraries/${libraryId}`);
    await checkbox(page, "Alpha").focus();
    await page.keyboard.press("Space");
    // Tab past Alpha's cover link and "Add to…" to Beta's checkbox, then Gamma's.
    for (let step = 0; step < 6; step += 1) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Select Gamma");
    await page.keyboard.press("Shift+Space");
    expect(await checkedNames(page)).toEqual(["Alpha", "Beta", "Gamma"]);
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Mark read");
    await page.keyboard.press("Enter");
    await notice(page, "Marked 7 books of 3 series read.");
    expect((await seriesOf(adminToken, "Gamma")).booksReadCount).toBe(2);
    // Tab on to "Mark unread" and use it, then Escape clears the selection.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await notice(page, "Marked 7 books of 3 series unread.");
    await page.keyboard.press("Escape");
    expect(await checkedNames(page)).toEqual([]);
    expect(await count(page)).toBe("");
    expect((await seriesOf(adminToken, "Gamma")).booksReadCount).toBe(0);
  }, 60_000);

  test("the bar at 1440 and 375 px, light and dark, fits the screen", async () => {
    for (const width of [1440, 375]) {
      for (const colorScheme of ["light", "dark"] as const) {
        const { page } = await open("admin", width, colorScheme);
        await page.goto(`/libraries/${libraryId}`);
        await page.getByRole("button", { name: "Select all" }).click();
        await page.mouse.wheel(0, 200);
        // The wheel scrolls smoothly: the shot is taken once the page has stopped moving (taken
        // mid-scroll, the sticky header showed 46 px below the top, over the page's heading).
        await page.waitForFunction(
          () => {
            const seen = window as unknown as { lastScrollY?: number };
            const settled = seen.lastScrollY === scrollY;
            seen.lastScrollY = scrollY;
            return settled;
          },
          undefined,
          { polling: 100 },
        );
        expect(await page.locator("#bulk-series").isVisible()).toBe(true);
        expect({ width, overflow: await overflowsHorizontally(page) }).toEqual({ width, overflow: false });
        if (server().kind === "sqlite") await screenshot(page, `bulk-bar-${colorScheme}-${width}`);
      }
    }
  }, 90_000);

  test("over HTTP: a hidden or unknown id, an empty selection, a list the user may not change are refused and change nothing", async () => {
    const cookie = await webSignIn(server(), "reader");
    const pageHtml = await (await server().fetch(`/libraries/${libraryId}`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(pageHtml)![1]!;
    const post = (path: string, fields: [string, string][]) =>
      server().fetch(path, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, origin: server().url, "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
        body: new URLSearchParams([["_csrf", csrf], ...fields]).toString(),
      });
    const before = await seriesOf(readerToken, "Alpha");

    const hidden = await post("/bulk/series/read-state", [["ids", seriesIds.Alpha!], ["ids", seriesIds.Secret!], ["read", "true"]]);
    expect(hidden.status).toBe(422);
    const alert = await hidden.text();
    expect(alert).toContain('role="alert"');
    expect(alert).toContain("The selection names items that do not exist or that you cannot see.");
    expect(hidden.headers.get("hx-retarget")).toBe("#flash");
    expect((await seriesOf(readerToken, "Alpha")).booksReadCount).toBe(before.booksReadCount);
    // As the admin sees it too: the reader's progress on the hidden series' book was not written.
    expect((await api(readerToken, "GET", `/api/v1/books/${bookIds["Secret 1"]}`)).status).toBe(404);

    const unknown = await post("/bulk/books/read-state", [["ids", bookIds["Alpha 1"]!], ["ids", "00000000-0000-4000-8000-000000000000"], ["read", "true"]]);
    expect(unknown.status).toBe(422);
    expect((await api(readerToken, "GET", `/api/v1/books/${bookIds["Alpha 1"]}`)).body.readProgress).toBeNull();

    const empty = await post("/bulk/series/read-state", [["read", "true"]]);
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain("The selection is empty.");

    // Nothing selected makes no new (empty) list either.
    const none = await post("/bulk/series/add-to", [["list", "new"], ["name", "Empty"]]);
    expect(none.status).toBe(422);
    expect(await none.text()).toContain("The selection is empty.");
    expect(await listItems("collections", "Empty", readerToken)).toBeUndefined();

    // Hidden series cannot be added to a list, nor shown in the dialog.
    expect((await post("/bulk/series/add-to", [["ids", seriesIds.Secret!], ["list", "new"], ["name", "Sneaky"]])).status).toBe(422);
    expect(await listItems("collections", "Sneaky", readerToken)).toBeUndefined();
    expect((await server().fetch(`/bulk/series/add-to?ids=${seriesIds.Secret}`, { headers: { cookie } })).status).toBe(422);

    // A shared collection (the admin's) is not the reader's to change.
    const shared = (await api(adminToken, "POST", "/api/v1/collections", { name: "Staff picks", seriesIds: [seriesIds.Beta] })).body;
    const refused = await post("/bulk/series/add-to", [["ids", seriesIds.Alpha!], ["list", shared.id]]);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("You are not allowed to do this.");
    expect(await listItems("collections", "Staff picks")).toEqual(["Beta"]);
    // Not offered in the dialog either.
    const dialog = await (await server().fetch(`/bulk/series/add-to?ids=${seriesIds.Alpha}`, { headers: { cookie, "hx-request": "true" } })).text();
    expect(dialog).not.toContain("Staff picks");

    // Re-analysis is for admins.
    expect((await post("/bulk/series/analyze", [["ids", seriesIds.Alpha!]])).status).toBe(403);

    // Without htmx, a plain form post gets a page saying what happened, with a way back.
    const plain = await server().fetch("/bulk/books/read-state", {
      method: "POST",
      headers: { cookie, origin: server().url, referer: `${server().url}/series/${seriesIds.Beta}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([["_csrf", csrf], ["ids", bookIds["Beta 2"]!], ["read", "true"]]).toString(),
    });
    expect(plain.status).toBe(200);
    const result = await plain.text();
    expect(result).toContain("Marked 1 book read.");
    expect(result).toContain(`href="/series/${seriesIds.Beta}"`);
    expect((await api(readerToken, "GET", `/api/v1/books/${bookIds["Beta 2"]}`)).body.readProgress?.completed).toBe(true);

    // Without htmx, "Add to…" is a page whose form remembers where it was opened from.
    const addPage = await (await server().fetch(`/bulk/series/add-to?ids=${seriesIds.Gamma}`, { headers: { cookie, referer: `${server().url}/libraries/${libraryId}` } })).text();
    expect(addPage).toContain(`name="back" value="/libraries/${libraryId}"`);
    const added = await server().fetch("/bulk/series/add-to", {
      method: "POST",
      headers: { cookie, origin: server().url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([["_csrf", csrf], ["ids", seriesIds.Gamma!], ["list", "new"], ["name", "Plain"], ["back", `/libraries/${libraryId}`]]).toString(),
    });
    const addedPage = await added.text();
    expect(addedPage).toContain("Added 1 series to the collection “Plain”.");
    expect(addedPage).toContain(`href="/libraries/${libraryId}"`);
    expect(await listItems("collections", "Plain", readerToken)).toEqual(["Gamma"]);

    // Without the CSRF token nothing happens.
    const forged = await server().fetch("/bulk/books/read-state", {
      method: "POST",
      headers: { cookie, origin: server().url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([["ids", bookIds["Beta 1"]!], ["read", "true"]]).toString(),
    });
    expect(forged.status).toBe(403);
    expect((await api(readerToken, "GET", `/api/v1/books/${bookIds["Beta 1"]}`)).body.readProgress).toBeNull();
  }, 60_000);
});
