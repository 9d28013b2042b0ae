/**
 * The first run in Debian's Chromium against a real server on each database (issue 32): a
 * refused admin account names its field, the setup URL follows the step (/setup, then
 * /setup/library), the folder picker starts at the likely places with SVG icons (no emoji),
 * counts a folder's books within its budget ("1,000+") and never through a symbolic link,
 * and "Use this folder" fills the path and, while it is empty, the name; a refused path says so
 * at the field, which takes the focus, with what was typed kept; after the first scan the notice
 * follows the scan to its end, links its errors and offers to open the library, and "Cancel
 * scan" is gone. Screenshots of both steps at 1440 and 375 px, light and dark.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { PASSWORD, webSignIn } from "../helpers/auth";
import { makeCbz, tempFolder } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { launchChromium, openPage, overflowsHorizontally, screenshot, type WatchedPage } from "./browser";

/** Emoji and other pictographs, which need an emoji font to show. */
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

forEachDatabase("first run", (server: () => TestServer) => {
  let browser: Browser;
  let admin: WatchedPage;
  let books: string;
  let big: string;

  beforeAll(async () => {
    browser = await launchChromium();
    admin = await openPage(browser, { baseURL: server().url });
    // A library of three books, one of them unreadable (catalogued with an error), and a big folder of
    // 1,001 empty book names, which the picker stops counting at 1,000.
    books = join(tempFolder("longbox-first-run-"), "Space Comics");
    for (let number = 1; number <= 2; number++) await makeCbz(join(books, "Orbit", `Orbit ${number}.cbz`), { seed: number });
    writeFileSync(join(books, "Orbit", "Orbit 3.cbz"), "not a zip archive");
    big = tempFolder("longbox-big-folder-");
    for (let index = 0; index < 1001; index++) writeFileSync(join(big, `Book ${index}.cbz`), "");
    mkdirSync(join(big, ".hidden"));
    // A link out of the library to the big folder: never followed, so never counted.
    symlinkSync(big, join(books, "Elsewhere"));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  const shots = async (name: string) => {
    if (server().kind !== "sqlite") return;
    const { page } = admin;
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      for (const width of [1440, 375]) {
        await page.setViewportSize({ width, height: 900 });
        expect(await overflowsHorizontally(page)).toBe(false);
        await screenshot(page, `${name}-${width}-${colorScheme}`);
      }
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  test("a refused admin account says which field and why, with what was typed kept (never the password)", async () => {
    const response = await server().fetch("/setup", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server().url },
      body: new URLSearchParams({ username: "admin", email: "not an address", password: "too short" }).toString(),
    });
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain('<p id="email-error" class="field-error">The email address must be an email address.</p>');
    expect(html).toMatch(/id="email"[^>]* value="not an address" aria-invalid="true" aria-describedby="email-error" autofocus>/);
    expect(html).toMatch(/id="username"[^>]* value="admin">/);
    expect(html).not.toContain("too short");
  });

  test("the setup URL follows the step: /setup for the admin, then /setup/library", async () => {
    const { page } = admin;
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/setup");
    expect(await page.getByText("Step 1 of 2").isVisible()).toBe(true);
    await shots("first-run-admin");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create the administrator" }).click();
    await page.waitForURL((url) => url.pathname === "/setup/library");
    expect(await page.getByRole("heading", { name: "Add your first library" }).isVisible()).toBe(true);
    expect(await page.getByText("Step 2 of 2").isVisible()).toBe(true);
  }, 60_000);

  test("the picker starts at the likely places, with SVG icons and no emoji", async () => {
    const cookie = await webSignIn(server(), "admin");
    const response = await server().fetch("/admin/folders", { headers: { cookie, "hx-request": "true" } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toMatch(PICTOGRAPH);
    expect(html).toContain("Likely places");
    // Each usual place shows when it exists here, and only then.
    for (const place of ["/mnt", "/media", "/srv", "/data", homedir()]) {
      expect(html.includes(`?path=${encodeURIComponent(place)}"`)).toBe(existsSync(place));
    }
    expect(html).toMatch(/<img class="icon" src="\/static\/icons\/folder\.svg\?v=[^"]+" alt=""/);
    // A folder's listing: icons again, never an emoji.
    const listing = await (await server().fetch(`/admin/folders?path=${encodeURIComponent(books)}`, { headers: { cookie, "hx-request": "true" } })).text();
    expect(listing).not.toMatch(PICTOGRAPH);
    expect(listing).toContain("icons/folder-up.svg");
    expect(listing).toContain("Holds 3 books.");
    // Nobody but an admin browses the server's folders.
    expect((await server().fetch("/admin/folders", { redirect: "manual" })).status).toBe(303);

    const { page } = admin;
    await page.getByRole("button", { name: "Browse…" }).click();
    await page.locator("#folder-picker").getByText("Likely places for books on this server").waitFor();
    expect(await page.locator("#folder-picker img.icon").count()).toBeGreaterThan(0);
    expect(await page.locator("#folder-picker").textContent()).not.toMatch(PICTOGRAPH);
    // The images load (a CSP refusal or a missing file would leave them broken).
    const broken = await page.locator("#folder-picker img.icon").evaluateAll((images) => images.filter((image) => !(image as HTMLImageElement).naturalWidth).length);
    expect(broken).toBe(0);
  }, 60_000);

  test("a big folder counts as 1,000+ books; \"Use this folder\" fills the path, and the name only while it is empty", async () => {
    const { page } = admin;
    await page.getByLabel("Folder on the server").fill(big);
    await page.getByRole("button", { name: "Browse…" }).click();
    await page.locator("#folder-picker .book-count").getByText("Holds 1,000+ books.").waitFor();
    await page.getByRole("button", { name: "Use this folder" }).click();
    expect(await page.getByLabel("Folder on the server").inputValue()).toBe(big);
    expect(await page.getByLabel("Name").inputValue()).toBe(big.split("/").at(-1)!);

    await page.getByLabel("Name").fill("My comics");
    await page.getByLabel("Folder on the server").fill(join(books, ".."));
    await page.getByRole("button", { name: "Browse…" }).click();
    await page.locator("#folder-picker").getByRole("button", { name: "Space Comics", exact: true }).click();
    await page.locator("#folder-picker .book-count").getByText("Holds 3 books.").waitFor();
    await page.getByRole("button", { name: "Use this folder" }).click();
    expect(await page.getByLabel("Folder on the server").inputValue()).toBe(books);
    expect(await page.getByLabel("Name").inputValue()).toBe("My comics");
    await page.getByLabel("Name").fill("");
    await page.getByRole("button", { name: "Use this folder" }).click();
    expect(await page.getByLabel("Name").inputValue()).toBe("Space Comics");
    await shots("first-run-library");
  }, 60_000);

  test("a bad path is refused at its field, which takes the focus, with what was typed kept", async () => {
    const { page } = admin;
    const missing = join(big, "no such folder");
    await page.getByLabel("Name").fill("Typed name");
    await page.getByLabel("Folder on the server").fill(missing);
    await page.getByLabel("How folders become series").selectOption("flat");
    await page.getByLabel("Scan it right away").uncheck();
    await page.getByRole("button", { name: "Add the library" }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe("/setup/library");
    const error = page.locator("#path-error");
    expect(await error.textContent()).toBe("The folder on the server does not exist.");
    expect(await page.getByRole("alert").textContent()).toContain("The folder on the server does not exist.");
    const path = page.getByLabel("Folder on the server");
    expect(await path.getAttribute("aria-invalid")).toBe("true");
    expect(await path.getAttribute("aria-describedby")).toContain("path-error");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("library-path");
    expect(await path.inputValue()).toBe(missing);
    expect(await page.getByLabel("Name").inputValue()).toBe("Typed name");
    expect(await page.getByLabel("How folders become series").inputValue()).toBe("flat");
    expect(await page.getByLabel("Scan it right away").isChecked()).toBe(false);
    expect(await page.getByLabel("Name").getAttribute("aria-invalid")).toBeNull();
    await shots("first-run-library-error");
  }, 60_000);

  test("after the first scan the notice follows it to its end: its errors linked, the library to open, no Cancel", async () => {
    const { page } = admin;
    await page.getByLabel("Name").fill("Space Comics");
    await page.getByLabel("Folder on the server").fill(books);
    await page.getByLabel("Scan it right away").check();
    await page.getByRole("button", { name: "Add the library" }).click();
    await page.waitForURL((url) => url.pathname === "/admin/libraries" && url.searchParams.get("notice") === "created-scanning");
    const libraryId = new URL(page.url()).searchParams.get("library")!;
    const notice = page.locator("p.notice[role=status]");
    await page.locator("p.notice[role=status]", { hasText: "The first scan is complete: 3 books added, 1 error." }).waitFor({ timeout: 30_000 });
    expect(await notice.getByRole("link", { name: "1 error" }).getAttribute("href")).toBe("/admin/errors");
    const progress = page.locator(`#scan-${libraryId}`);
    await progress.locator('[data-status="completed"]').waitFor();
    expect(await progress.getByRole("link", { name: "1 error" }).getAttribute("href")).toBe("/admin/errors");
    expect(await page.getByRole("button", { name: "Cancel scan" }).count()).toBe(0);
    await shots("first-run-scanned");
    // A page loaded after the scan has no Cancel either (it showed one after a completed scan).
    await page.reload();
    await progress.locator('[data-status="completed"]').waitFor();
    expect(await page.getByRole("button", { name: "Cancel scan" }).count()).toBe(0);
    // (Followed by its address: the stream, opening, swaps the notice in again under a click.)
    expect(await notice.getByRole("link", { name: "Open the library" }).getAttribute("href")).toBe(`/libraries/${libraryId}`);
    expect(await progress.getByRole("link", { name: "Open the library" }).getAttribute("href")).toBe(`/libraries/${libraryId}`);
    await page.goto(`/libraries/${libraryId}`);
    expect(await page.getByRole("heading", { name: "Space Comics", level: 1 }).isVisible()).toBe(true);
    // The refused form's page was a 422, which Chromium reports; nothing else went wrong.
    expect(admin.problems.consoleErrors.filter((error) => !error.includes("status of 422"))).toEqual([]);
    expect(admin.problems.pageErrors).toEqual([]);
    expect(admin.problems.dialogs).toEqual([]);
  }, 60_000);
});
