/**
 * Real Chromium for the web interface tests: Debian's /usr/bin/chromium driven by playwright-core
 * (no browser download). Every page a test opens records console errors, uncaught exceptions and
 * dialogs (an `alert` from injected markup would be one), so a test can assert there were none.
 * Screenshots go to test-output/screenshots (git-ignored).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { PROJECT_ROOT } from "../helpers/cli";

export const SCREENSHOTS = join(PROJECT_ROOT, "test-output", "screenshots");

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** What went wrong in a page, as the browser saw it. */
export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  dialogs: string[];
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  problems: PageProblems;
  close(): Promise<void>;
}

export async function openPage(
  browser: Browser,
  options: { width?: number; colorScheme?: "light" | "dark"; baseURL: string },
): Promise<WatchedPage> {
  const context = await browser.newContext({
    baseURL: options.baseURL,
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], dialogs: [] };
  page.on("console", (message) => {
    if (message.type() === "error") problems.consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.pageErrors.push(`${page.url()}: ${error.message}`));
  page.on("dialog", (dialog) => {
    // hx-confirm asks before destructive actions: those are accepted; anything else is recorded.
    if (dialog.type() === "confirm") {
      void dialog.accept();
      return;
    }
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, context, problems, close: () => context.close() };
}

/**
 * Signs in through the login form and waits for the start page. The fields are found by id, not
 * by their labels, so it works whatever language the page is in (tests/web/languages.test.ts).
 */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.locator("#username").fill(username);
  await page.locator("#password").fill(password);
  await page.locator("form:has(#username) button[type=submit]").click();
  await page.waitForURL((url) => url.pathname === "/");
}

/** Whether the document is wider than the viewport (a horizontal scroll bar). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/**
 * The JavaScript and CSS the open page loads, in bytes as sent gzipped (each must be sent
 * gzipped), and how many files that is.
 */
export async function gzippedAssetBytes(page: Page): Promise<{ files: number; bytes: number }> {
  const assets = await page.evaluate(() => [
    ...Array.from(document.querySelectorAll("script[src]"), (script) => (script as HTMLScriptElement).src),
    ...Array.from(document.querySelectorAll("link[rel=stylesheet]"), (link) => (link as HTMLLinkElement).href),
  ]);
  let bytes = 0;
  for (const url of assets) {
    const response = await fetch(url, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    if (response.headers.get("content-encoding") !== "gzip") throw new Error(`${url} is not sent gzipped`);
    bytes += (await response.arrayBuffer()).byteLength;
  }
  return { files: assets.length, bytes };
}

/**
 * The critical and serious accessibility violations axe-core (a dev dependency) finds on the
 * open page, as "rule target, target". axe is evaluated through the DevTools protocol, so the
 * page's CSP does not apply to it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(join(PROJECT_ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8"));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const { violations } = await axe.run();
    return violations.filter((violation) => violation.impact === "critical" || violation.impact === "serious").map((violation) => `${violation.id} ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
}
