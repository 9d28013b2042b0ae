/**
 * Admins edit series and book metadata and covers in the web interface, in Chromium on each
 * database (issue 32): edited fields show on the pages and through REST and are locked, an
 * unlocked field gets the file's value back from the next deep scan, a bad value is said beside
 * its field (focused) with the other typed values kept, covers are uploaded, taken from a page
 * and restored, and only admins may do any of it. The library is a real fixture with ComicInfo
 * (Captain Science #1, see the fixtures' SOURCES.md).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import sharp from "sharp";
import type { Browser, Page } from "playwright-core";
import { adminSession, bearer, createUser, PASSWORD, webSignIn } from "../helpers/auth";
import { createLibrary, libraryRoot, placeFixture, scan, scanToCompletion } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { launchChromium, openPage, overflowsHorizontally, screenshot, signIn, type WatchedPage } from "./browser";

/** Small enough that a test can send a larger file cheaply. */
const COVER_LIMIT = 50_000;
const FILE_PUBLISHER = "Youthful Adventure Stories";

forEachDatabase(
  "web metadata editing",
  (server: () => TestServer) => {
    let browser: Browser;
    let token: string;
    let libraryId: string;
    let seriesId: string;
    let bookId: string;
    const opened: WatchedPage[] = [];

    const api = (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(token));
    const open = async (options: { width?: number; colorScheme?: "light" | "dark"; user?: string } = {}) => {
      const watched = await openPage(browser, { baseURL: server().url, width: options.width ?? 1440, colorScheme: options.colorScheme });
      opened.push(watched);
      await signIn(watched.page, options.user ?? "admin", PASSWORD);
      return watched;
    };
    /** The image the pages show for a cover URL, as the signed-in browser gets it. */
    const coverBytes = async (page: Page, url: string) => Buffer.from(await (await page.request.get(url)).body());
    /** The image's average colour, to tell pictures apart. */
    const meanColour = async (bytes: Uint8Array) => (await sharp(bytes).stats()).channels.slice(0, 3).map((channel) => channel.mean);
    /** Waits until the field has the focus (htmx gives it when the swapped page settles); times out otherwise. */
    const focusOn = (page: Page, id: string) => page.waitForFunction((wanted) => document.activeElement?.id === wanted, id, { timeout: 5000 });
    const distance = (a: number[], b: number[]) => Math.hypot(...a.map((value, index) => value - b[index]!));

    beforeAll(async () => {
      browser = await launchChromium();
      token = (await adminSession(server())).token;
      await createUser(server(), token, "reader");
      const root = libraryRoot(server(), "Comics");
      placeFixture("cbz/comicbox/Captain Science #001.cbz", join(root, "Captain Science", "Captain Science #001.cbz"));
      libraryId = (await createLibrary(server(), bearer(token), { name: "Comics", path: root })).id;
      await scanToCompletion(server(), token, libraryId);
      const { body: series } = await api("GET", "/api/v1/series");
      seriesId = series.data[0].id;
      expect(series.data[0].publisher).toBe(FILE_PUBLISHER);
      const { body: books } = await api("GET", `/api/v1/series/${seriesId}/books`);
      bookId = books.data[0].id;
    }, 120_000);

    afterAll(async () => {
      // The refused forms answer 413 and 422 on purpose: the browser logs those, nothing else.
      for (const { problems } of opened) {
        expect({ ...problems, consoleErrors: problems.consoleErrors.filter((message) => !/status of (413|422)/.test(message)) }).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
      }
      await browser?.close();
    });

    test("an admin edits series fields: the series page and REST show them, locked; unlocked, a deep scan restores the file's value", async () => {
      const { page } = await open();
      await page.goto(`/series/${seriesId}`);
      await page.getByRole("link", { name: "Edit", exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/series/${seriesId}/edit`);
      expect(await page.locator("#edit-publisher").inputValue()).toBe(FILE_PUBLISHER);
      await page.getByLabel("Publisher").fill("Moonshine <Press>");
      await page.getByLabel("Year").fill("1951");
      await page.getByLabel("Summary").fill("Retold for the web.");
      await page.getByLabel("Reading direction").selectOption("rtl");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Saved. Edited fields are locked").waitFor();

      for (const field of ["publisher", "year", "summary", "readingDirection"]) expect(await page.locator(`#edit-${field}-lock`).textContent()).toContain("Locked");
      // Left alone, so not locked: saving the form sends only what changed.
      expect(await page.locator("#edit-name-lock").count()).toBe(0);
      const { body: edited } = await api("GET", `/api/v1/series/${seriesId}`);
      expect(edited).toMatchObject({ publisher: "Moonshine <Press>", year: 1951, summary: "Retold for the web.", readingDirection: "rtl", lockedFields: ["publisher", "readingDirection", "summary", "year"] });

      await page.goto(`/series/${seriesId}`);
      const meta = page.locator(".detail .meta");
      expect(await meta.textContent()).toContain("Moonshine <Press>");
      expect(await meta.textContent()).toContain("1951");
      expect(await meta.textContent()).toContain("Right to left (manga)");
      expect(await page.locator(".detail .summary").textContent()).toBe("Retold for the web.");
      // The direction this admin reads it in: the series' until they choose one in the reader.
      const yours = page.locator(".detail .meta dt", { hasText: "You read it" }).locator("xpath=following-sibling::dd[1]");
      expect(await yours.textContent()).toBe("Right to left (manga) (the series' direction)");
      expect((await api("PATCH", `/api/v1/series/${seriesId}/reader-settings`, { mode: "webtoon" })).status).toBe(200);
      await page.reload();
      expect(await yours.textContent()).toBe("Webtoon (vertical strip) (your choice in the reader)");

      await page.goto(`/series/${seriesId}/edit`);
      await page.getByRole("button", { name: "Unlock: Publisher" }).click();
      await page.getByText("Unlocked.").waitFor();
      expect(await page.locator("#edit-publisher-lock").count()).toBe(0);
      const { body: unlocked } = await api("GET", `/api/v1/series/${seriesId}`);
      expect(unlocked).toMatchObject({ publisher: "Moonshine <Press>", lockedFields: ["readingDirection", "summary", "year"] });

      expect((await scan(server(), bearer(token), libraryId, "deep")).status).toBe("completed");
      const { body: rescanned } = await api("GET", `/api/v1/series/${seriesId}`);
      expect(rescanned).toMatchObject({ publisher: FILE_PUBLISHER, year: 1951, summary: "Retold for the web.", readingDirection: "rtl" });
      await page.reload();
      expect(await page.locator("#edit-publisher").inputValue()).toBe(FILE_PUBLISHER);
    }, 90_000);

    test("an admin sets status, genres, tags, authors, age rating, language and links: the series page shows them, links only http(s) and without referrer or opener", async () => {
      const { page } = await open();
      await page.goto(`/series/${seriesId}/edit`);
      await page.getByLabel("Status").selectOption("ended");
      await page.getByLabel("Genres").fill("Science Fiction, Space Opera, science fiction");
      await page.getByLabel("Tags").fill("golden age");
      await page.getByLabel("Authors").fill("writer: Walter Gibson\npenciller: Al <Script>");
      await page.getByLabel("Age rating").fill("8");
      await page.getByLabel("Language").fill("fr");
      await page.getByLabel("Links").fill("Not allowed javascript:alert(1)");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.locator("#edit-links-error").waitFor();
      expect(await page.locator("#edit-links-error").textContent()).toBe("Each link needs a label and an address starting with http:// or https://.");
      await focusOn(page, "edit-links");
      expect((await api("GET", `/api/v1/series/${seriesId}`)).body.status).toBeNull();

      await page.getByLabel("Links").fill("Digital Comic Museum https://digitalcomicmuseum.com/\nWiki https://en.wikipedia.org/wiki/Captain_Science");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Saved. Edited fields are locked").waitFor();
      for (const field of ["status", "genres", "tags", "authors", "ageRating", "language", "links"]) expect(await page.locator(`#edit-${field}-lock`).textContent()).toContain("Locked");
      expect(await page.locator("#edit-genres").inputValue()).toBe("Science Fiction, Space Opera");
      const { body: edited } = await api("GET", `/api/v1/series/${seriesId}`);
      expect(edited).toMatchObject({
        status: "ended",
        genres: ["Science Fiction", "Space Opera"],
        tags: ["golden age"],
        authors: [
          { name: "Al <Script>", role: "penciller" },
          { name: "Walter Gibson", role: "writer" },
        ],
        ageRating: 8,
        language: "fr",
        links: [
          { label: "Digital Comic Museum", url: "https://digitalcomicmuseum.com/" },
          { label: "Wiki", url: "https://en.wikipedia.org/wiki/Captain_Science" },
        ],
      });

      await page.goto(`/series/${seriesId}`);
      const value = (term: string) => page.locator(".detail .meta dt", { hasText: term }).locator("xpath=following-sibling::dd[1]");
      expect(await value("Status").textContent()).toBe("Ended");
      expect(await value("Genres").textContent()).toBe("Science Fiction, Space Opera");
      expect(await value("Tags").textContent()).toBe("golden age");
      expect(await value("Age rating").textContent()).toBe("8 and over");
      expect(await value("Language").textContent()).toBe("fr");
      expect(await value("writer").textContent()).toBe("Walter Gibson");
      // Known roles are named by the catalog (author.role), not shown as the stored word.
      expect(await page.locator(".detail .meta dt.role").allTextContents()).toEqual(["Penciller", "Writer"]);
      expect(await value("penciller").textContent()).toBe("Al <Script>");
      const links = page.locator(".detail .meta .links a");
      expect(await links.count()).toBe(2);
      expect(await links.first().getAttribute("href")).toBe("https://digitalcomicmuseum.com/");
      expect(await links.first().getAttribute("rel")).toBe("noopener noreferrer");
      expect(await links.nth(1).textContent()).toBe("Wiki");

      // The genre filter of the library grid finds it by the edited genre.
      await page.goto(`/libraries/${libraryId}?genre=space%20opera`);
      expect(await page.locator("main").textContent()).toContain("Captain Science");
    }, 90_000);

    test("a bad value is said beside its field, which gets the focus; the other typed values are kept and nothing is saved", async () => {
      const { page } = await open();
      await page.goto(`/series/${seriesId}/edit`);
      const before = (await api("GET", `/api/v1/series/${seriesId}`)).body;
      await page.getByLabel("Publisher").fill("Typed Press");
      await page.getByLabel("Year").fill("99999");
      await page.getByLabel("Sort name").fill("");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.locator("#edit-year-error").waitFor();
      expect(await page.locator("#edit-year-error").textContent()).toBe("Year must be a whole number from 1 to 9999.");
      expect(await page.locator("#edit-nameSort-error").textContent()).toBe("Sort name cannot be empty.");
      expect(await page.locator("#edit-year").getAttribute("aria-invalid")).toBe("true");
      // The first field in error in the form's order (the sort name comes before the year).
      await focusOn(page, "edit-nameSort");
      expect(await page.locator("#edit-publisher").inputValue()).toBe("Typed Press");
      expect(await page.locator("#edit-year").inputValue()).toBe("99999");
      expect((await api("GET", `/api/v1/series/${seriesId}`)).body).toEqual(before);

      await page.getByLabel("Sort name").fill(before.nameSort);
      await page.getByLabel("Year").fill("1e3");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      // The new answer has replaced the page when the sort name's error is gone.
      await page.locator("#edit-nameSort-error").waitFor({ state: "detached" });
      expect(await page.locator("#edit-year-error").textContent()).toBe("Year must be a whole number from 1 to 9999.");
      await focusOn(page, "edit-year");
      expect((await api("GET", `/api/v1/series/${seriesId}`)).body.publisher).toBe(before.publisher);
    }, 60_000);

    test("an admin edits a book from its page: title, number, summary, year and tags show on the book page and through REST, locked", async () => {
      const { page } = await open();
      await page.goto(`/books/${bookId}`);
      await page.getByRole("link", { name: "Edit", exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/books/${bookId}/edit`);
      expect(await page.locator("#edit-title").inputValue()).toBe("The Beginning; The End");
      await page.getByLabel("Title", { exact: true }).fill("First Flight");
      await page.getByLabel("Number").fill("7");
      await page.getByLabel("Summary").fill("Told in a new way.");
      await page.getByLabel("Release year").fill("1952");
      await page.getByLabel("Tags").fill("rocket, Rocket, moon");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Saved. Edited fields are locked").waitFor();
      expect(await page.locator("#edit-title-lock").textContent()).toContain("Locked");
      const { body: book } = await api("GET", `/api/v1/books/${bookId}`);
      expect(book).toMatchObject({ title: "First Flight", number: 7, summary: "Told in a new way.", year: 1952 });
      expect(book.lockedFields).toContain("tags");
      expect(await page.locator("#edit-tags").inputValue()).toBe("moon, rocket");
      expect(await page.locator("#edit-number-lock").textContent()).toContain("Locked");
      await page.goto(`/books/${bookId}`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("First Flight");
      expect(await page.locator(".detail-body > .muted").textContent()).toContain("#7 · 1952");
      expect(await page.locator(".detail .summary").textContent()).toBe("Told in a new way.");

      await page.goto(`/books/${bookId}/edit`);
      await page.getByRole("button", { name: "Unlock: Title" }).click();
      await page.getByText("Unlocked.").waitFor();
      expect((await scan(server(), bearer(token), libraryId, "deep")).status).toBe("completed");
      const { body: rescanned } = await api("GET", `/api/v1/books/${bookId}`);
      expect(rescanned).toMatchObject({ title: "The Beginning; The End", number: 7, summary: "Told in a new way.", year: 1952 });
    }, 90_000);

    test("a series cover is uploaded and restored; a non-image or an oversized file is refused beside the cover and changes nothing", async () => {
      const { page } = await open();
      const coverUrl = `/covers/series/${seriesId}`;
      const original = await coverBytes(page, coverUrl);
      await page.goto(`/series/${seriesId}/edit`);
      const red = await sharp({ create: { width: 200, height: 300, channels: 3, background: { r: 220, g: 20, b: 20 } } }).png().toBuffer();
      const upload = async (file: { name: string; mimeType: string; buffer: Buffer }) => {
        await page.getByLabel("Upload an image as the cover").setInputFiles(file);
        await page.getByRole("button", { name: "Upload the cover" }).click();
      };

      await upload({ name: "notes.png", mimeType: "image/png", buffer: Buffer.from("these are notes, not pixels") });
      await page.locator("#cover-error").getByText("The file is not an image in a supported format (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF).").waitFor();
      await upload({ name: "huge.png", mimeType: "image/png", buffer: Buffer.concat([red, Buffer.alloc(COVER_LIMIT)]) });
      await page.locator("#cover-error").getByText("The cover is larger than the limit of 48.8 kB.").waitFor();
      expect((await coverBytes(page, coverUrl)).equals(original)).toBe(true);

      await upload({ name: "red.png", mimeType: "image/png", buffer: red });
      await page.getByText("The new cover is saved.").waitFor();
      const [r, g, b] = await meanColour(await coverBytes(page, coverUrl));
      expect(r! > 180 && g! < 60 && b! < 60).toBe(true);
      // The page shows the served picture, not a cached one.
      expect(await page.locator(".edit-cover").evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);

      await page.getByRole("button", { name: "Restore the default cover" }).click();
      await page.getByText("The default cover is back.").waitFor();
      expect((await coverBytes(page, coverUrl)).equals(original)).toBe(true);
      expect(await page.getByRole("button", { name: "Restore the default cover" }).count()).toBe(0);
    }, 60_000);

    test("a page of the book becomes its cover from the page picker or from the reader, and the default comes back", async () => {
      const { page } = await open();
      const coverUrl = `/covers/books/${bookId}`;
      const original = await coverBytes(page, coverUrl);
      await page.goto(`/books/${bookId}/edit`);
      expect(await page.locator(".page-choice").count()).toBe(5);
      await page.getByLabel("Page 3", { exact: true }).check();
      await page.getByRole("button", { name: "Use this page as the cover" }).click();
      await page.getByText("The new cover is saved.").waitFor();
      const pageColours = await Promise.all([1, 2, 3, 4, 5].map(async (number) => meanColour(await coverBytes(page, `/api/v1/books/${bookId}/pages/${number}?width=200`))));
      /** The page the cover looks most like. */
      const coverPage = async () => {
        const cover = await meanColour(await coverBytes(page, coverUrl));
        const distances = pageColours.map((colour) => distance(cover, colour));
        return distances.indexOf(Math.min(...distances)) + 1;
      };
      expect(await coverPage()).toBe(3);

      await page.goto(`/read/${bookId}?page=4`);
      await page.getByText("Settings", { exact: true }).click();
      await page.getByRole("button", { name: "Use this page as the book's cover" }).click();
      await page.getByText("Page 4 is now the book's cover.").waitFor();
      expect(await coverPage()).toBe(4);
      await page.goto(`/books/${bookId}/edit`);

      await page.getByRole("button", { name: "Restore the default cover" }).click();
      await page.getByText("The default cover is back.").waitFor();
      expect((await coverBytes(page, coverUrl)).equals(original)).toBe(true);
    }, 60_000);

    test("a non-admin sees no Edit link and is refused (403) every edit page and action; an admin's form without its CSRF token too", async () => {
      const { page } = await open({ user: "reader" });
      await page.goto(`/series/${seriesId}`);
      expect(await page.getByRole("link", { name: "Edit", exact: true }).count()).toBe(0);
      await page.goto(`/books/${bookId}`);
      expect(await page.getByRole("link", { name: "Edit", exact: true }).count()).toBe(0);

      const before = (await api("GET", `/api/v1/series/${seriesId}`)).body;
      const cookie = await webSignIn(server(), "reader");
      const page403 = await server().fetch(`/series/${seriesId}/edit`, { headers: { cookie } });
      expect(page403.status).toBe(403);
      const csrf = (await (await server().fetch(`/series/${seriesId}`, { headers: { cookie } })).text()).match(/name="_csrf" value="([^"]+)"/)![1]!;
      const form = { "content-type": "application/x-www-form-urlencoded", origin: server().url, cookie };
      for (const [path, body] of [
        [`/series/${seriesId}/edit`, { publisher: "Reader Press", _csrf: csrf }],
        [`/series/${seriesId}/edit/unlock`, { field: "year", _csrf: csrf }],
        [`/series/${seriesId}/edit/cover/remove`, { _csrf: csrf }],
        [`/books/${bookId}/edit`, { title: "Reader's title", _csrf: csrf }],
        [`/books/${bookId}/edit/cover/page`, { page: "2", _csrf: csrf }],
      ] as const) {
        const response = await server().fetch(path, { method: "POST", redirect: "manual", headers: form, body: new URLSearchParams(body).toString() });
        expect({ path, status: response.status }).toEqual({ path, status: 403 });
      }
      const upload = new FormData();
      upload.set("file", new Blob([await sharp({ create: { width: 20, height: 30, channels: 3, background: "#00f" } }).png().toBuffer()]), "blue.png");
      const uploaded = await server().fetch(`/series/${seriesId}/edit/cover`, { method: "POST", redirect: "manual", headers: { origin: server().url, cookie, "x-csrf-token": csrf }, body: upload });
      expect(uploaded.status).toBe(403);
      expect((await api("GET", `/api/v1/series/${seriesId}`)).body).toEqual(before);

      const adminCookie = await webSignIn(server(), "admin");
      const withoutToken = await server().fetch(`/series/${seriesId}/edit`, {
        method: "POST",
        redirect: "manual",
        headers: { ...form, cookie: adminCookie },
        body: new URLSearchParams({ publisher: "No Token Press" }).toString(),
      });
      expect(withoutToken.status).toBe(403);
      expect((await api("GET", `/api/v1/series/${seriesId}`)).body.publisher).toBe(before.publisher);
    }, 60_000);

    test("the edit pages fit 1440 and 375 px in both themes (screenshots)", async () => {
      for (const colorScheme of ["light", "dark"] as const) {
        for (const width of [1440, 375]) {
          const { page } = await open({ width, colorScheme });
          for (const [name, path] of [
            ["series-edit", `/series/${seriesId}/edit`],
            ["book-edit", `/books/${bookId}/edit`],
          ] as const) {
            await page.goto(path);
            expect({ path, width, overflow: await overflowsHorizontally(page) }).toEqual({ path, width, overflow: false });
            await screenshot(page, `${name}-${colorScheme}${width === 375 ? "-narrow" : ""}`);
          }
        }
      }
    }, 90_000);
  },
  { files: { max_cover_upload_bytes: COVER_LIMIT } },
);
