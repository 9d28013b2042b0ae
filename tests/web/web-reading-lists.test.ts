/**
 * Collections, read lists and want-to-read in the web interface (issue 33), in Chromium on each
 * database: creating, renaming, deleting, removing an item, reordering by drag and by keyboard
 * (checked through REST), a .cbl upload that names the book it did not find, the want-to-read
 * toggle and page, the reader's "Read next" following a read list across series, and users
 * whose sharing tags hide series seeing (and counting) only what they may inside shared lists.
 *
 * The world (tests/lists/support.ts): Alpha (tag T1), Beta, Gamma (tag T2), two books each;
 * alice sees all three, bob only Alpha, carol Beta and Gamma.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { PASSWORD } from "../helpers/auth";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { buildListWorld, cbl, type ListWorld, type SeriesKey, type UserKey } from "../lists/support";
import { axeViolations, launchChromium, openPage, overflowsHorizontally, screenshot, signIn, type WatchedPage } from "./browser";

forEachDatabase("web collections, read lists and want-to-read", (server: () => TestServer) => {
  let browser: Browser;
  let world: ListWorld;
  const opened: WatchedPage[] = [];
  /** Ids of what the tests made: the shared collection and read list. */
  const made: { collection?: string; readList?: string } = {};

  const api = (user: UserKey, method: string, path: string, body?: unknown) => server().json(method, path, body, world.headers[user]);
  const open = async (user: UserKey, width = 1440, colorScheme: "light" | "dark" = "light") => {
    const watched = await openPage(browser, { baseURL: server().url, width, colorScheme });
    opened.push(watched);
    await signIn(watched.page, user, PASSWORD);
    return watched;
  };
  const seriesId = (key: SeriesKey) => world.series[key].id;
  const bookId = (key: SeriesKey, number: 1 | 2) => world.series[key].books[number - 1];
  /** The names of the list page's items, in order. */
  const itemNames = (page: Page) => page.locator("#list-items > .list-item").evaluateAll((items) => items.map((item) => item.getAttribute("data-item-name")));
  const collectionOrder = async (user: UserKey, id: string) =>
    (await api(user, "GET", `/api/v1/collections/${id}/series`)).body.data.map((series: { name: string }) => series.name);
  const readListOrder = async (user: UserKey, id: string) => (await api(user, "GET", `/api/v1/readlists/${id}/books`)).body.data.map((book: { title: string }) => book.title);
  /** Waits for a move to be saved: the page announces it only once the server answered. */
  const movedTo = async (page: Page, text: string) => {
    await page.waitForFunction((expected) => document.getElementById("order-status")?.textContent === expected, text);
  };

  beforeAll(async () => {
    browser = await launchChromium();
    world = await buildListWorld(server());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  test("the menu leads to collections, read lists and want-to-read", async () => {
    const { page } = await open("alice");
    const menu = page.getByRole("navigation", { name: "Main" });
    for (const [name, path] of [
      ["Collections", "/collections"],
      ["Read lists", "/readlists"],
      ["Want to read", "/want-to-read"],
    ] as const) {
      await menu.getByRole("link", { name, exact: true }).click();
      await page.waitForURL((url) => url.pathname === path);
      expect(await page.locator("h1").textContent()).toBe(name);
      expect(await menu.getByRole("link", { name, exact: true }).getAttribute("aria-current")).toBe("page");
    }
  }, 60_000);

  test("an admin creates a shared collection, reorders it by drag, by Alt+arrow and by its Move buttons, and each order is the REST order", async () => {
    const { page } = await open("admin");
    await page.goto("/collections");
    await page.getByRole("textbox", { name: "Name" }).fill("Favourites");
    // An admin's list is shared unless they say otherwise.
    expect(await page.getByRole("checkbox", { name: /^Shared with everyone/ }).isChecked()).toBe(true);
    await page.getByRole("checkbox", { name: /^Ordered/ }).check();
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL((url) => /^\/collections\/[0-9a-f-]{36}$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/")[2]!;
    made.collection = id;
    expect(await page.getByRole("status").first().textContent()).toBe("The collection is created.");
    expect((await api("admin", "GET", `/api/v1/collections/${id}`)).body).toMatchObject({ name: "Favourites", shared: true, ordered: true, seriesCount: 0 });

    expect((await api("admin", "POST", `/api/v1/collections/${id}/series`, { seriesIds: [seriesId("Alpha"), seriesId("Beta"), seriesId("Gamma")] })).status).toBe(200);
    await page.reload();
    expect(await itemNames(page)).toEqual(["Alpha", "Beta", "Gamma"]);
    expect(await page.locator(".page-head .muted").textContent()).toContain("3 series");

    // Drag Gamma onto Alpha: it goes before it.
    await page.locator(`#item-${seriesId("Gamma")}`).dragTo(page.locator(`#item-${seriesId("Alpha")}`));
    await movedTo(page, "Moved Gamma to position 1 of 3.");
    expect(await itemNames(page)).toEqual(["Gamma", "Alpha", "Beta"]);
    expect(await collectionOrder("admin", id)).toEqual(["Gamma", "Alpha", "Beta"]);

    // Alt+Right with the focus on Alpha: one place on, the focus stays with it.
    await page.locator(`#item-${seriesId("Alpha")}`).focus();
    await page.keyboard.press("Alt+ArrowRight");
    await movedTo(page, "Moved Alpha to position 3 of 3.");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-item-name"))).toBe("Alpha");
    expect(await page.locator(`#item-${seriesId("Alpha")}`).getAttribute("aria-label")).toBe("Alpha, 3 of 3");
    expect(await collectionOrder("admin", id)).toEqual(["Gamma", "Beta", "Alpha"]);
    await page.keyboard.press("Alt+ArrowRight");
    await movedTo(page, "Alpha is already last.");

    // A Move button (Enter on it).
    await page.getByRole("button", { name: "Move Gamma down" }).focus();
    await page.keyboard.press("Enter");
    await movedTo(page, "Moved Gamma to position 2 of 3.");
    expect(await collectionOrder("admin", id)).toEqual(["Beta", "Gamma", "Alpha"]);
    // The order holds on a fresh page.
    await page.reload();
    expect(await itemNames(page)).toEqual(["Beta", "Gamma", "Alpha"]);
    // "?" lists the moving keys.
    await page.locator("main").focus();
    await page.keyboard.press("?");
    expect(await page.locator("#shortcuts").textContent()).toContain("Move the focused cover one place on");
  }, 60_000);

  test("without script the Move buttons are forms that save the order too", async () => {
    const context = await browser.newContext({ baseURL: server().url, javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, "admin", PASSWORD);
    await page.goto(`/collections/${made.collection}`);
    await page.getByRole("button", { name: "Move Alpha up" }).click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "moved");
    expect(await collectionOrder("admin", made.collection!)).toEqual(["Beta", "Alpha", "Gamma"]);
    await context.close();
  }, 60_000);

  test("a shared read list shows read badges, and its Read button starts at the first unread book", async () => {
    const { page } = await open("admin");
    await page.goto("/readlists");
    await page.getByRole("textbox", { name: "Name" }).fill("Crossover");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL((url) => /^\/readlists\/[0-9a-f-]{36}$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/")[2]!;
    made.readList = id;
    const order = [bookId("Alpha", 1), bookId("Gamma", 1), bookId("Beta", 2), bookId("Alpha", 2)];
    expect((await api("admin", "POST", `/api/v1/readlists/${id}/books`, { bookIds: order })).status).toBe(200);
    expect((await api("admin", "PUT", `/api/v1/books/${bookId("Alpha", 1)}/progress`, { page: 2, completed: true })).status).toBeLessThan(300);
    await page.reload();
    expect(await itemNames(page)).toEqual(["Alpha 1", "Gamma 1", "Beta 2", "Alpha 2"]);
    expect(await page.locator(`#item-${bookId("Alpha", 1)} .read-badge`).textContent()).toBe("Read");
    expect(await page.locator(`#item-${bookId("Gamma", 1)} .read-badge`).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Read", exact: true }).getAttribute("href")).toBe(`/read/${bookId("Gamma", 1)}?readlist=${id}`);

    // A keyboard move in a read list, checked through REST.
    await page.locator(`#item-${bookId("Alpha", 2)}`).focus();
    await page.keyboard.press("Alt+ArrowUp");
    await movedTo(page, "Moved Alpha 2 to position 3 of 4.");
    expect(await readListOrder("admin", id)).toEqual(["Alpha 1", "Gamma 1", "Alpha 2", "Beta 2"]);
    await page.keyboard.press("Alt+ArrowDown");
    await movedTo(page, "Moved Alpha 2 to position 4 of 4.");
    expect(await readListOrder("admin", id)).toEqual(["Alpha 1", "Gamma 1", "Beta 2", "Alpha 2"]);
  }, 60_000);

  test("inside shared lists each user sees and counts only the series and books their sharing tags allow", async () => {
    const expected: Record<"alice" | "bob" | "carol", { collection: string[]; readList: string[] }> = {
      alice: { collection: ["Beta", "Alpha", "Gamma"], readList: ["Alpha 1", "Gamma 1", "Beta 2", "Alpha 2"] },
      bob: { collection: ["Alpha"], readList: ["Alpha 1", "Alpha 2"] },
      carol: { collection: ["Beta", "Gamma"], readList: ["Gamma 1", "Beta 2"] },
    };
    for (const [user, sees] of Object.entries(expected) as [keyof typeof expected, (typeof expected)["alice"]][]) {
      const { page } = await open(user);
      await page.goto("/collections");
      const card = page.locator(".list-card", { hasText: "Favourites" });
      expect({ user, count: await card.locator(".card-subtitle").textContent() }).toEqual({ user, count: `${sees.collection.length} series · Shared` });
      await card.getByRole("link").click();
      await page.waitForURL((url) => url.pathname === `/collections/${made.collection}`);
      expect({ user, items: await itemNames(page) }).toEqual({ user, items: sees.collection });
      expect(await page.locator(".page-head .muted").textContent()).toContain(`${sees.collection.length} series`);
      // A shared list is the admins' to change: no edit form, no Move or Remove buttons.
      expect(await page.locator(".list-edit, .item-tools").count()).toBe(0);
      const hidden = ["Alpha", "Beta", "Gamma"].filter((name) => !sees.collection.includes(name));
      const text = (await page.locator("main").textContent()) ?? "";
      for (const name of hidden) expect({ user, name, shown: text.includes(name) }).toEqual({ user, name, shown: false });

      await page.goto("/readlists");
      expect(await page.locator(".list-card", { hasText: "Crossover" }).locator(".card-subtitle").textContent()).toBe(`${sees.readList.length} books · Shared`);
      await page.goto(`/readlists/${made.readList}`);
      expect({ user, items: await itemNames(page) }).toEqual({ user, items: sees.readList });
    }
  }, 90_000);

  test("a user's own list is private: another user gets 404 and cannot change it; bad names are refused with a message and change nothing", async () => {
    const { page } = await open("alice");
    await page.goto("/collections");
    expect(await page.getByRole("checkbox", { name: /^Shared with everyone/ }).count()).toBe(0);
    await page.getByRole("textbox", { name: "Name" }).fill("Mine");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL((url) => /^\/collections\/[0-9a-f-]{36}$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/")[2]!;
    expect((await api("alice", "GET", `/api/v1/collections/${id}`)).body).toMatchObject({ name: "Mine", shared: false });

    // Rename, with a blank and a too long name first.
    await page.locator(".list-edit summary").click();
    await page.getByRole("textbox", { name: "Name" }).fill("   ");
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.getByRole("alert").textContent()).toBe("The name is required.");
    await page.getByRole("textbox", { name: "Name" }).evaluate((input) => input.removeAttribute("maxlength"));
    await page.getByRole("textbox", { name: "Name" }).fill("x".repeat(201));
    await page.getByRole("button", { name: "Save" }).click();
    // The page with the blank name's alert stays until the answer replaces it.
    await page.waitForFunction(() => document.querySelector("[role=alert]")?.textContent !== "The name is required.");
    expect(await page.getByRole("alert").textContent()).toBe("The name must have at most 200 characters.");
    expect((await api("alice", "GET", `/api/v1/collections/${id}`)).body.name).toBe("Mine");
    await page.getByRole("textbox", { name: "Name" }).fill("Mine, renamed");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "saved");
    expect(await page.locator("h1").textContent()).toBe("Mine, renamed");
    expect((await api("alice", "GET", `/api/v1/collections/${id}`)).body.name).toBe("Mine, renamed");

    // The same name again is a conflict; nothing is created.
    const before = (await api("alice", "GET", "/api/v1/collections")).body.totalElements;
    await page.goto("/collections");
    await page.getByRole("textbox", { name: "Name" }).fill("Mine, renamed");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    expect(await page.getByRole("alert").textContent()).toBe("The name is already in use.");
    expect((await api("alice", "GET", "/api/v1/collections")).body.totalElements).toBe(before);

    // bob: not shown, not found, not changed.
    const bob = await open("bob");
    await bob.page.goto("/collections");
    const csrf = await bob.page.evaluate(() => JSON.parse(document.body.getAttribute("hx-headers")!)["X-CSRF-Token"] as string);
    const response = await bob.page.goto(`/collections/${id}`);
    expect(response?.status()).toBe(404);
    expect(await bob.page.locator("main").textContent()).toContain("This page or item does not exist");
    expect(await bob.page.locator("main").textContent()).not.toContain("Mine");
    const rename = await bob.page.request.post(`/collections/${id}/edit`, { form: { name: "taken over", _csrf: csrf }, headers: { origin: server().url }, maxRedirects: 0 });
    expect(rename.status()).toBe(404);
    const remove = await bob.page.request.post(`/collections/${id}/delete`, { form: { _csrf: csrf }, headers: { origin: server().url }, maxRedirects: 0 });
    expect(remove.status()).toBe(404);
    expect((await api("alice", "GET", `/api/v1/collections/${id}`)).body.name).toBe("Mine, renamed");
    expect(await bob.page.goto("/collections").then(() => bob.page.locator(".list-card", { hasText: "Mine" }).count())).toBe(0);

    // A remove and then a delete, asked for first (the test's browser accepts the question).
    expect((await api("alice", "POST", `/api/v1/collections/${id}/series`, { seriesIds: [seriesId("Beta"), seriesId("Gamma")] })).status).toBe(200);
    await page.goto(`/collections/${id}`);
    await page.getByRole("button", { name: "Remove Beta" }).click();
    await page.waitForURL((url) => url.searchParams.get("notice") === "removed");
    expect(await itemNames(page)).toEqual(["Gamma"]);
    expect(await collectionOrder("alice", id)).toEqual(["Gamma"]);
    await page.locator(".list-edit summary").click();
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
    });
    await page.getByRole("button", { name: "Delete the collection" }).click();
    await page.waitForURL((url) => url.pathname === "/collections" && url.searchParams.get("notice") === "deleted");
    expect(asked).toBe("Delete the collection “Mine, renamed”? Its series stay in the library.");
    expect((await api("alice", "GET", `/api/v1/collections/${id}`)).status).toBe(404);
  }, 90_000);

  test("a .cbl upload makes a read list, says how many books matched and names the one not found; a malformed file changes nothing", async () => {
    const { page } = await open("alice");
    await page.goto("/readlists");
    const file = cbl("Event: Origins", [
      { series: "Alpha", number: "2" },
      { series: "Beta", number: "1" },
      { series: "Omega", number: "3", volume: "1985", year: "1986" },
    ]);
    await page.getByLabel(".cbl file").setInputFiles({ name: "origins.cbl", mimeType: "application/xml", buffer: Buffer.from(file) });
    await page.getByRole("button", { name: "Import" }).click();
    const result = page.locator(".import-result");
    await result.waitFor();
    expect(await result.locator("h2").textContent()).toBe("Imported Event: Origins");
    expect(await result.textContent()).toContain("2 of 3 books matched.");
    expect(await result.locator(".unmatched li").allTextContents()).toEqual(["Omega (1985) #3, 1986 (no such series)"]);
    const lists = (await api("alice", "GET", "/api/v1/readlists")).body.data as { id: string; name: string; bookCount: number; shared: boolean }[];
    const imported = lists.find((list) => list.name === "Event: Origins")!;
    expect(imported).toMatchObject({ bookCount: 2, shared: false });
    expect(await readListOrder("alice", imported.id)).toEqual(["Alpha 2", "Beta 1"]);
    await result.getByRole("link", { name: "Event: Origins" }).click();
    await page.waitForURL((url) => url.pathname === `/readlists/${imported.id}`);
    expect(await itemNames(page)).toEqual(["Alpha 2", "Beta 1"]);

    await page.goto("/readlists");
    await page.getByLabel(".cbl file").setInputFiles({ name: "broken.cbl", mimeType: "application/xml", buffer: Buffer.from("<ReadingList><Name>Broken</Name><Books><Book") });
    await page.getByRole("button", { name: "Import" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toMatch(/reading list/);
    expect((await api("alice", "GET", "/api/v1/readlists")).body.data.map((list: { name: string }) => list.name)).not.toContain("Broken");
  }, 60_000);

  test("want to read: the series page's toggle adds and removes, and /want-to-read shows the series", async () => {
    const { page } = await open("carol");
    await page.goto(`/series/${seriesId("Beta")}`);
    const toggle = page.getByRole("button", { name: "Want to read" });
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    await toggle.click();
    await page.waitForFunction(() => document.querySelector(".want-to-read button")?.getAttribute("aria-pressed") === "true");
    expect(await page.locator(".want-to-read [role=status]").textContent()).toBe("Added to want to read.");
    expect((await api("carol", "GET", "/api/v1/want-to-read")).body.data.map((series: { name: string }) => series.name)).toEqual(["Beta"]);
    await page.reload();
    expect(await page.getByRole("button", { name: "Want to read" }).getAttribute("aria-pressed")).toBe("true");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Want to read" }).click();
    await page.waitForURL((url) => url.pathname === "/want-to-read");
    expect(await page.locator("main .card-title").allTextContents()).toEqual(["Beta"]);
    expect(await page.locator(".page-head .muted").textContent()).toBe("1 series");

    // A series carol may not see cannot be added, even by a hand-made request.
    const csrf = await page.evaluate(() => JSON.parse(document.body.getAttribute("hx-headers")!)["X-CSRF-Token"] as string);
    const refused = await page.request.post(`/series/${seriesId("Alpha")}/want-to-read`, { form: { want: "true", _csrf: csrf }, headers: { origin: server().url }, maxRedirects: 0 });
    expect(refused.status()).toBe(404);

    await page.goto(`/series/${seriesId("Beta")}`);
    await page.getByRole("button", { name: "Want to read" }).click();
    await page.waitForFunction(() => document.querySelector(".want-to-read button")?.getAttribute("aria-pressed") === "false");
    expect((await api("carol", "GET", "/api/v1/want-to-read")).body.data).toEqual([]);
    await page.goto("/want-to-read");
    expect(await page.locator("main .card-title").count()).toBe(0);
  }, 60_000);

  test("opened from a read list, the reader's Read next follows the list across series, skipping books the reader may not see", async () => {
    const readToEnd = async (page: Page) => {
      await page.waitForSelector("#comic-reader[data-ready]");
      await page.keyboard.press("End");
      await page.keyboard.press("ArrowRight");
      const next = page.locator("[data-role=next-book]");
      await next.waitFor({ state: "visible" });
      return next;
    };
    for (const [user, path] of [
      // alice sees every book: Alpha 1 -> Gamma 1 -> Beta 2 -> Alpha 2 (not the series' Alpha 2, Gamma 2).
      ["alice", ["Alpha 1", "Gamma 1", "Beta 2", "Alpha 2"]],
      // carol cannot see Alpha: the list starts at Gamma 1 and goes on to Beta 2.
      ["carol", ["Gamma 1", "Beta 2"]],
    ] as const) {
      const { page } = await open(user);
      await page.goto(`/readlists/${made.readList}`);
      await page.getByRole("link", { name: "Read", exact: true }).click();
      await page.waitForURL((url) => url.pathname.startsWith("/read/"));
      for (let index = 0; index < path.length - 1; index++) {
        expect(await page.locator(".reader-title").textContent()).toBe(path[index]!);
        const next = await readToEnd(page);
        expect({ user, next: await next.textContent() }).toEqual({ user, next: `Read next: ${path[index + 1]}` });
        expect(new URL(await next.evaluate((link) => (link as HTMLAnchorElement).href)).searchParams.get("readlist")).toBe(made.readList!);
        await next.click();
        await page.waitForURL((url) => url.pathname === `/read/${bookId(path[index + 1]!.split(" ")[0] as SeriesKey, Number(path[index + 1]!.split(" ")[1]) as 1 | 2)}`);
      }
      // The list's last book: no Read next, a way back to the list.
      expect(await page.locator(".reader-title").textContent()).toBe(path.at(-1)!);
      await page.waitForSelector("#comic-reader[data-ready]");
      await page.keyboard.press("End");
      await page.keyboard.press("ArrowRight");
      await page.locator("[data-role=end]").waitFor({ state: "visible" });
      expect(await page.locator("[data-role=next-book]").count()).toBe(0);
      expect(await page.getByRole("link", { name: "Back to Crossover" }).count()).toBe(1);
    }
    // A read list the reader cannot open is a 404, not a silent fallback.
    const { page } = await open("bob");
    const mine = (await api("alice", "GET", "/api/v1/readlists")).body.data.find((list: { shared: boolean }) => !list.shared).id;
    expect((await page.goto(`/read/${bookId("Alpha", 1)}?readlist=${mine}`))?.status()).toBe(404);
  }, 120_000);

  test("the new pages fit a phone, pass axe in both themes, and are photographed at 1440 and 375 px", async () => {
    const screens: Record<string, string> = {
      "lists-collections": "/collections",
      "lists-collection": `/collections/${made.collection}`,
      "lists-readlists": "/readlists",
      "lists-readlist": `/readlists/${made.readList}`,
      "lists-want-to-read": "/want-to-read",
      "lists-series-toggle": `/series/${seriesId("Beta")}`,
    };
    expect((await api("admin", "PUT", `/api/v1/want-to-read/${seriesId("Gamma")}`)).status).toBe(204);
    const found: string[] = [];
    for (const colorScheme of ["light", "dark"] as const) {
      for (const width of [1440, 375]) {
        const { page } = await open("admin", width, colorScheme);
        for (const [name, path] of Object.entries(screens)) {
          await page.goto(path);
          await page.waitForLoadState("networkidle");
          expect({ path, width, overflow: await overflowsHorizontally(page) }).toEqual({ path, width, overflow: false });
          expect({ path, h1: await page.locator("h1").count() }).toEqual({ path, h1: 1 });
          if (server().kind === "sqlite") await screenshot(page, `${name}-${colorScheme}-${width}`);
          for (const violation of await axeViolations(page)) found.push(`${path} ${colorScheme} ${width}: ${violation}`);
        }
      }
    }
    expect(found).toEqual([]);
  }, 240_000);

  test("no page opened here logged a script error or opened an unexpected dialog", () => {
    for (const { problems } of opened) {
      // The 404s and 422s asked for above answered so on purpose.
      expect({ ...problems, consoleErrors: problems.consoleErrors.filter((message) => !/status of (404|422)/.test(message)) }).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
    }
  });
});
