/**
 * "Edit metadata" of the web multi-select (issue 32), in Chromium and over HTTP on each
 * database: an admin ticks fields and sets them on every selected series or book at once; the
 * fields not ticked stay as they were, the ticked ones are locked as a single edit locks them
 * (checked through the REST API and across a deep scan). A bad value, an unknown or hidden id,
 * or nothing ticked refuses the whole edit and changes nothing; users other than admins get 403.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { adminSession, bearer, createUser, PASSWORD, webSignIn } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, scanToCompletion } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { launchChromium, openPage, signIn, type WatchedPage } from "./browser";

const SERIES = { Alpha: 2, Beta: 2, Gamma: 1 };

forEachDatabase("web bulk metadata edit", (server: () => TestServer) => {
  let browser: Browser;
  let adminToken: string;
  let libraryId: string;
  const seriesIds: Record<string, string> = {};
  const bookIds: Record<string, string> = {};
  const opened: WatchedPage[] = [];

  const api = (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(adminToken));
  const series = async (name: string) => (await api("GET", `/api/v1/series/${seriesIds[name]}`)).body;
  const book = async (title: string) => (await api("GET", `/api/v1/books/${bookIds[title]}`)).body;
  const checkbox = (page: Page, name: string) => page.getByRole("checkbox", { name: `Select ${name}`, exact: true });
  const notice = async (page: Page, text: string) => {
    await page.locator("#flash .notice", { hasText: text }).waitFor({ timeout: 10_000 }).catch(async () => {
      throw new Error(`no notice "${text}"; #flash holds: ${await page.locator("#flash").innerHTML()}`);
    });
  };

  /** Posts a bulk form as htmx does, signed in as `username`. */
  async function poster(username: string) {
    const cookie = await webSignIn(server(), username);
    const pageHtml = await (await server().fetch(`/libraries/${libraryId}`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(pageHtml)![1]!;
    return (path: string, fields: [string, string][]) =>
      server().fetch(path, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, origin: server().url, "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
        body: new URLSearchParams([["_csrf", csrf], ...fields]).toString(),
      });
  }

  beforeAll(async () => {
    browser = await launchChromium();
    adminToken = (await adminSession(server())).token;
    const root = join(server().dir, "libraries", "Comics");
    let seed = 1;
    for (const [name, books] of Object.entries(SERIES)) {
      for (let number = 1; number <= books; number += 1) {
        const info = comicInfo({ Series: name, Number: number, Title: `${name} ${number}`, Publisher: `${name} Press`, Year: 2000 + number, Summary: `${name} ${number} from the file.` });
        await makeCbz(join(root, name, `${name} ${number}.cbz`), { pages: 2, seed: seed++, comicInfo: info });
      }
    }
    libraryId = (await createLibrary(server(), bearer(adminToken), { name: "Comics", path: root })).id;
    await scanToCompletion(server(), adminToken, libraryId);
    for (const entry of (await api("GET", "/api/v1/series?pageSize=50")).body.data as { id: string; name: string }[]) seriesIds[entry.name] = entry.id;
    for (const entry of (await api("GET", "/api/v1/books?pageSize=50")).body.data as { id: string; title: string }[]) bookIds[entry.title] = entry.id;
    await createUser(server(), adminToken, "reader");
  }, 120_000);

  afterAll(async () => {
    for (const watched of opened) expect(watched.problems).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
    await browser?.close();
  });

  test("in Chromium: the ticked fields are set on every selected series and locked; the others stay; a deep scan keeps them", async () => {
    const watched = await openPage(browser, { baseURL: server().url, width: 1440, colorScheme: "light" });
    opened.push(watched);
    const { page } = watched;
    await signIn(page, "admin", PASSWORD);
    await page.goto(`/libraries/${libraryId}`);
    const gammaBefore = await series("Gamma");
    await checkbox(page, "Alpha").click();
    await checkbox(page, "Beta").click();
    await page.getByRole("button", { name: "Edit metadata…" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit the metadata of 2 series" });
    await dialog.waitFor();
    // Fields that name one series are not offered.
    expect(await dialog.getByRole("checkbox", { name: "Change: Name" }).count()).toBe(0);
    // Typing in a field ticks its box; choosing a direction ticks its box.
    await dialog.getByRole("textbox", { name: "Publisher" }).fill("Shared Comics");
    expect(await dialog.getByRole("checkbox", { name: "Change: Publisher" }).isChecked()).toBe(true);
    await dialog.getByRole("combobox", { name: "Reading direction" }).selectOption("rtl");
    expect(await dialog.getByRole("checkbox", { name: "Change: Year" }).isChecked()).toBe(false);
    await dialog.getByRole("button", { name: "Save" }).click();
    await notice(page, "Changed Publisher and Reading direction of 2 series. Scans keep them.");
    expect(await dialog.isVisible()).toBe(false);

    for (const name of ["Alpha", "Beta"]) {
      const after = await series(name);
      expect(after).toMatchObject({ publisher: "Shared Comics", readingDirection: "rtl", year: 2001, summary: expect.stringContaining(name) });
      expect(after.lockedFields).toEqual(["publisher", "readingDirection"]);
    }
    expect(await series("Gamma")).toMatchObject({ publisher: gammaBefore.publisher, lockedFields: [] });
    expect((await scan(server(), bearer(adminToken), libraryId, "deep")).status).toBe("completed");
    expect(await series("Alpha")).toMatchObject({ publisher: "Shared Comics", readingDirection: "rtl" });
  }, 90_000);

  test("over HTTP: books get the ticked fields (a blank one cleared), in one go; a bad value or a hidden id changes nothing", async () => {
    const post = await poster("admin");
    const dialog = await (await post("/bulk/books/edit", [["ids", bookIds["Beta 1"]!], ["ids", bookIds["Beta 2"]!]])).text();
    expect(dialog).toContain("Edit the metadata of 2 books");
    expect(dialog).toContain('name="set" value="volume"');
    expect(dialog).not.toContain('name="set" value="title"');

    const edited = await post("/bulk/books/edit", [
      ["ids", bookIds["Beta 1"]!],
      ["ids", bookIds["Beta 2"]!],
      ["apply", "true"],
      ["set", "volume"],
      ["set", "summary"],
      ["volume", "3"],
      ["summary", ""],
      ["year", "1999"],
    ]);
    expect(edited.status).toBe(200);
    expect(await edited.text()).toContain("Changed Volume and Summary of 2 books.");
    for (const [title, year] of [["Beta 1", 2001], ["Beta 2", 2002]] as const) {
      expect(await book(title)).toMatchObject({ title, volume: 3, summary: null, year, lockedFields: ["summary", "volume"] });
    }

    // Books of two series at once: each series settles from its books (their genres) after the edit.
    const genres = await post("/bulk/books/edit", [["ids", bookIds["Beta 1"]!], ["ids", bookIds["Beta 2"]!], ["ids", bookIds["Alpha 2"]!], ["apply", "true"], ["set", "genres"], ["genres", "Bulk Genre"]]);
    expect(genres.status).toBe(200);
    for (const name of ["Alpha", "Beta"]) expect((await series(name)).genres).toEqual(["Bulk Genre"]);
    expect((await series("Gamma")).genres).toEqual([]);

    // A bad value for one field: nothing changes, the dialog says why beside the field.
    const bad = await post("/bulk/books/edit", [["ids", bookIds["Alpha 1"]!], ["ids", bookIds["Alpha 2"]!], ["apply", "true"], ["set", "volume"], ["set", "year"], ["volume", "4"], ["year", "12345"]]);
    expect(bad.status).toBe(422);
    expect(bad.headers.get("hx-retarget")).toBe("#bulk-dialog-slot");
    expect(await bad.text()).toContain("Release year must be a whole number from 1 to 9999.");
    expect(await book("Alpha 1")).toMatchObject({ volume: null, year: 2001, lockedFields: [] });

    // One unknown id refuses the whole selection.
    const unknown = await post("/bulk/series/edit", [["ids", seriesIds.Gamma!], ["ids", "00000000-0000-4000-8000-000000000000"], ["apply", "true"], ["set", "publisher"], ["publisher", "Nobody"]]);
    expect(unknown.status).toBe(422);
    expect(await series("Gamma")).toMatchObject({ publisher: "Gamma Press", lockedFields: [] });

    // Nothing ticked: said, nothing changes.
    const nothing = await post("/bulk/series/edit", [["ids", seriesIds.Gamma!], ["apply", "true"], ["publisher", "Unticked"]]);
    expect(nothing.status).toBe(422);
    expect(await nothing.text()).toContain("Tick at least one field to change.");
    expect((await series("Gamma")).publisher).toBe("Gamma Press");

    // Admins only.
    const reader = await poster("reader");
    expect((await reader("/bulk/series/edit", [["ids", seriesIds.Gamma!]])).status).toBe(403);
    expect((await reader("/bulk/series/edit", [["ids", seriesIds.Gamma!], ["apply", "true"], ["set", "publisher"], ["publisher", "Reader"]])).status).toBe(403);
    expect((await series("Gamma")).publisher).toBe("Gamma Press");
  }, 60_000);
});
