/**
 * The account page in Chromium (issue 27, item 5): an API key's scope is chosen when it is made
 * and shown for each key, and the KOReader sync key is made (shown once) and removed there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { Browser } from "playwright-core";
import { adminSession, PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";
import { launchChromium, openPage, signIn, type WatchedPage } from "./browser";

forEachDatabase("account page: key scopes and the KOReader sync key", (server) => {
  let browser: Browser;
  let watched: WatchedPage;

  beforeAll(async () => {
    await adminSession(server());
    browser = await launchChromium();
    watched = await openPage(browser, { baseURL: server().url });
    await signIn(watched.page, "admin", PASSWORD);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  const kosyncAuth = (key: string) =>
    server().fetch("/koreader/users/auth", {
      headers: { accept: "application/vnd.koreader.v1+json", "x-auth-user": "admin", "x-auth-key": createHash("md5").update(key).digest("hex") },
    });

  test("a key is made with the chosen scope, and each key's scope is listed", async () => {
    const { page } = watched;
    await page.goto("/account");
    // Reader is the form's default.
    expect(await page.getByLabel("Scope").inputValue()).toBe("reader");
    await page.getByLabel("New key's name").fill("Mihon");
    await page.getByRole("button", { name: "Create a key" }).click();
    await page.getByText("The reader key “Mihon” is created").waitFor();
    const readerKey = (await page.locator("#new-api-key").textContent())!.trim();
    await page.getByLabel("New key's name").fill("Backup script");
    await page.getByLabel("Scope").selectOption("full");
    await page.getByRole("button", { name: "Create a key" }).click();
    await page.getByText("The full key “Backup script” is created").waitFor();

    await page.reload();
    const scopeOf = (name: string) => page.locator("#api-keys tr", { hasText: name }).locator("td[data-scope]").textContent();
    expect(await scopeOf("Mihon")).toBe("Reader: read and record progress");
    expect(await scopeOf("Backup script")).toBe("Full");

    // The reader key reads, and may not write.
    const reader = { "x-api-key": readerKey };
    expect((await server().json("GET", "/api/v1/auth/me", undefined, reader)).status).toBe(200);
    expect((await server().json("DELETE", "/api/v1/users/me/koreader-key", undefined, reader)).body.error).toBe("ReaderKeyScope");
    expect(watched.problems).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
  }, 30_000);

  test("the KOReader sync key is made once, works for KOReader, and is removed", async () => {
    const { page } = watched;
    await page.goto("/account");
    await page.getByText("No sync key is set.").waitFor();
    expect(await page.locator("#koreader-key").textContent()).toContain(`${server().url}/koreader`);
    await page.getByRole("button", { name: "Make a sync key" }).click();
    const key = (await page.locator("#new-sync-key").textContent())!.trim();
    expect(key.length).toBeGreaterThanOrEqual(16);
    expect((await kosyncAuth(key)).status).toBe(200);

    // Shown once.
    await page.goto("/account");
    await page.getByText(/A sync key is set \(since [^)]+\d{4}\)/).waitFor();
    expect(await page.content()).not.toContain(key);

    await page.getByRole("button", { name: "Remove the sync key" }).click();
    await page.getByText("Your KOReader sync key is removed").waitFor();
    await page.getByText("No sync key is set.").waitFor();
    expect((await kosyncAuth(key)).status).toBe(401);
    expect(watched.problems).toEqual({ consoleErrors: [], pageErrors: [], dialogs: [] });
  }, 30_000);
});
