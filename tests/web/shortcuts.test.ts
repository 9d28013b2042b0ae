/**
 * Keyboard shortcuts in Debian's Chromium: "?" lists them on every page and in both readers
 * (also from inside an EPUB's own frame), "/" focuses the search, "g" then "h" goes home; and
 * the readers' settings menus show what each control sets.
 */
import { beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { forEachDatabase } from "../helpers/server";
import { asAdmin, DESKTOP, readerLibrary, useChromium, type ReaderLibrary } from "./reader-support";

const TIMEOUT = 120_000;
const browser = useChromium();

const shortcutsDialog = (page: Page) => page.getByRole("dialog", { name: "Keyboard shortcuts" });

forEachDatabase("keyboard shortcuts", (server) => {
  let library: ReaderLibrary;
  beforeAll(async () => {
    library = await readerLibrary(server(), {
      "Science Comics/Science Comics 001.cbz": "cbz/stump/science_comics_001.cbz",
      "Alice/book.epub": "epub/stump/book.epub",
    });
  }, TIMEOUT);

  test("on the site: ? lists the shortcuts, / focuses the search, g h goes home; keys typed into a field are text", async () => {
    const comic = library.books["Science Comics 001.cbz"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await page.goto(`/books/${comic.id}`);
      await page.keyboard.press("?");
      const dialog = shortcutsDialog(page);
      await expect(dialog.isVisible()).resolves.toBe(true);
      const text = (await dialog.textContent()) ?? "";
      expect(text).toContain("Search");
      expect(text).toContain("Home");
      expect(text).not.toContain("Reading");
      await page.keyboard.press("Escape");
      await expect(dialog.isVisible()).resolves.toBe(false);

      await page.keyboard.press("/");
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("site-search");
      await page.keyboard.type("g?h");
      await expect(page.locator("#site-search").inputValue()).resolves.toBe("g?h");
      await expect(dialog.isVisible()).resolves.toBe(false);
      expect(new URL(page.url()).pathname).toBe(`/books/${comic.id}`);

      await page.locator("#site-search").blur();
      await Promise.all([page.waitForURL((url) => url.pathname === "/"), page.keyboard.press("g").then(() => page.keyboard.press("h"))]);
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);

  test("in the comic reader: ? lists the reading keys; the settings name what each control sets", async () => {
    const comic = library.books["Science Comics 001.cbz"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await page.goto(`/read/${comic.id}`);
      await page.waitForSelector("#comic-reader[data-ready]");
      await page.keyboard.press("?");
      const dialog = shortcutsDialog(page);
      await expect(dialog.isVisible()).resolves.toBe(true);
      expect(await dialog.textContent()).toContain("First page, last page");
      // Escape is the dialog's, not the reader's (which would hide its bars instead).
      await page.keyboard.press("Escape");
      await expect(dialog.isVisible()).resolves.toBe(false);
      await expect(page.locator("#comic-reader.chrome-hidden").count()).resolves.toBe(0);
      await page.keyboard.press("?");
      await dialog.getByRole("button", { name: "Close" }).click();
      await expect(dialog.isVisible()).resolves.toBe(false);

      await page.click(".reader-menu > summary");
      for (const name of ["Reading mode", "Fit", "Pages side by side"]) {
        await expect(page.getByText(name, { exact: true }).isVisible()).resolves.toBe(true);
        await expect(page.getByLabel(name, { exact: true }).evaluate((control) => control.tagName)).resolves.toBe("SELECT");
      }
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);

  test("in the EPUB reader: ? from inside the book's frame lists the keys; the text size is a labelled group", async () => {
    const alice = library.books["book.epub"]!;
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await page.goto(`/read/${alice.id}?page=3`);
      await page.waitForSelector("#epub-reader[data-ready]", { timeout: 20_000 });
      let frame = page.frames().find((candidate) => candidate.url().startsWith("blob:"));
      for (let wait = 0; wait < 50 && !frame; wait++) {
        await Bun.sleep(100);
        frame = page.frames().find((candidate) => candidate.url().startsWith("blob:"));
      }
      await frame!.evaluate(() => document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "?", bubbles: true })));
      const dialog = shortcutsDialog(page);
      await expect(dialog.isVisible()).resolves.toBe(true);
      expect(await dialog.textContent()).toContain("Close the contents");
      await page.keyboard.press("Escape");
      await expect(dialog.isVisible()).resolves.toBe(false);

      await page.click(".reader-menu > summary");
      const size = page.getByRole("group", { name: "Text size" });
      await expect(size.isVisible()).resolves.toBe(true);
      await expect(size.getByRole("button", { name: "Larger text" }).isVisible()).resolves.toBe(true);
      for (const name of ["Font", "Theme"]) await expect(page.getByLabel(name, { exact: true }).isVisible()).resolves.toBe(true);
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);
});
