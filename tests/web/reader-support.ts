/**
 * What the reader tests share: Debian's Chromium driven by playwright-core, a signed-in browser
 * context, a library of real fixtures, and small helpers over the server's request log.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import type { Browser, BrowserContext, BrowserContextOptions, Frame, Page } from "playwright-core";
import { adminSession, bearer, PASSWORD } from "../helpers/auth";
import { PROJECT_ROOT } from "../helpers/cli";
import { booksOf, libraryRoot, scannedLibrary } from "../helpers/library";
import type { TestServer } from "../helpers/server";
import { launchChromium, signIn } from "./browser";

export const SCREENSHOTS = join(PROJECT_ROOT, "test-output", "readers");
mkdirSync(SCREENSHOTS, { recursive: true });

/** One Chromium for the test file: started before its tests, closed after them. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("chromium did not start");
    return browser;
  };
}

export const PHONE: BrowserContextOptions = { viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

/** A browser context signed in through the login form, and the errors its pages raise. */
export async function signedIn(browser: Browser, server: TestServer, username: string, password: string, options = DESKTOP) {
  const context = await browser.newContext({ ...options, baseURL: server.url });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await signIn(page, username, password);
  return { context, page, errors };
}

/** 404s that are answers, not faults: the thumbnail of a book without a cover on the browse pages. */
const OPTIONAL = [/\/thumbnail$/];

/**
 * Uncaught exceptions, dialogs, console errors and failed loads but OPTIONAL ones. Failed loads
 * are read from Chromium's console lines rather than from network events: subscribing to those
 * makes playwright-core track every request, and under Bun its bookkeeping then races with
 * navigations ("Cannot find parent object request@...").
 */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("dialog", (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const source = message.location().url;
    const path = source ? new URL(source).pathname : "";
    if (message.text().startsWith("Failed to load resource") && OPTIONAL.some((pattern) => pattern.test(path))) return;
    errors.push(`console: ${message.text()} ${path}`.trim());
  });
  return errors;
}

/** Paths of the requests the server has answered so far, in order (from its debug request log). */
export function requestedPaths(server: TestServer): string[] {
  return server.logs.flatMap((line) => (line.includes(" request ") ? [/ path=(\S+)/.exec(line)?.[1] ?? ""] : []));
}

/** The statuses the server has answered requests for `path` with so far, in order (from its debug request log). */
export function answersFor(server: TestServer, path: string): number[] {
  return server.logs.flatMap((line) => (line.includes(" request ") && / path=(\S+)/.exec(line)?.[1] === path ? [Number(/ status=(\d+)/.exec(line)?.[1])] : []));
}

/** How many requests for `path` the server has answered so far. */
export function requestsFor(server: TestServer, path: string): number {
  return requestedPaths(server).filter((requested) => requested === path).length;
}

export interface ReaderLibrary {
  adminToken: string;
  books: Record<string, Record<string, any>>;
}

/** Fixtures placed in a library (target path -> fixture path) beside what `extra` writes, scanned; books by file name. */
export async function readerLibrary(server: TestServer, layout: Record<string, string>, extra: (root: string) => Promise<void> = async () => {}) {
  const { token } = await adminSession(server);
  const root = libraryRoot(server, "Readers");
  mkdirSync(root, { recursive: true });
  await extra(root);
  const libraryId = await scannedLibrary(server, token, "Readers", layout);
  const books: Record<string, Record<string, any>> = {};
  for (const book of await booksOf(server, bearer(token), libraryId)) books[String(book.filePath).split("/").pop()!] = book;
  return { adminToken: token, books };
}

/**
 * Opens the book page and follows its Read (or Continue) button, as a person would. The default
 * takes "Read" exactly ("Read lists" in the menu is no reader) or any "Continue ...".
 */
export async function openFromBookPage(page: Page, bookId: string, button: RegExp = /^(Read$|Continue)/) {
  await page.goto(`/books/${bookId}`);
  await Promise.all([page.waitForURL((url) => url.pathname === `/read/${bookId}`), page.getByRole("link", { name: button }).first().click()]);
}

export async function progressOf(server: TestServer, token: string, bookId: string) {
  const { status, body } = await server.json("GET", `/api/v1/books/${bookId}/progress`, undefined, bearer(token));
  return status === 204 ? null : (expect(status).toBe(200), body);
}

type Session = Awaited<ReturnType<typeof signedIn>>;

/** Runs `steps` as the admin in a fresh signed-in browser context, closed afterwards whatever happens. */
export async function asAdmin(browser: Browser, server: TestServer, options: BrowserContextOptions, steps: (session: Session) => Promise<void>) {
  const session = await signedIn(browser, server, "admin", PASSWORD, options);
  try {
    await steps(session);
  } finally {
    await session.context.close();
  }
}

/** Bytes of the reader's own code the page fetched, as sent (gzipped), from resource timing. */
export function readerCodeBytes(page: Page): Promise<number> {
  return page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((entry) => new URL(entry.name).pathname.startsWith("/static/reader/"))
      .reduce((sum, entry) => sum + (entry as PerformanceResourceTiming).encodedBodySize, 0),
  );
}

/** Addresses of the resources the page has fetched so far (resource timing), filtered by `part`. */
export function fetchedUrls(page: Page, part: string): Promise<string[]> {
  return page.evaluate((needle) => performance.getEntriesByType("resource").map((entry) => entry.name).filter((url) => url.includes(needle)), part);
}

/** A file of an EPUB a test writes: its path under OEBPS/, its manifest type and text. */
export interface EpubFile {
  href: string;
  mediaType: string;
  content: string;
  /** Manifest `properties` (such as "scripted"). */
  properties?: string;
}

/**
 * An EPUB 3 a test writes (the hostile books): `chapter` is the only spine item, with a
 * navigation document linking it; `extra` files are in the manifest but not in the spine.
 */
export function oneChapterEpub(identifier: string, title: string, chapter: EpubFile, extra: EpubFile[] = []): Uint8Array {
  const item = (file: EpubFile, id: string) =>
    `<item id="${id}" href="${file.href}" media-type="${file.mediaType}"${file.properties ? ` properties="${file.properties}"` : ""}/>`;
  const opf = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">${identifier}</dc:identifier>
<dc:title>${title}</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2026-01-01T00:00:00Z</meta></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
${[item(chapter, "chapter"), ...extra.map((file, index) => item(file, `extra-${index}`))].join("\n")}</manifest>
<spine><itemref idref="chapter"/></spine></package>`;
  const nav = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
<body><nav epub:type="toc"><ol><li><a href="${chapter.href}">${title}</a></li></ol></nav></body></html>`;
  const container = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`;
  return zipSync({
    mimetype: [strToU8("application/epub+zip"), { level: 0 }],
    "META-INF/container.xml": strToU8(container),
    "OEBPS/content.opf": strToU8(opf),
    "OEBPS/nav.xhtml": strToU8(nav),
    ...Object.fromEntries([chapter, ...extra].map((file) => [`OEBPS/${file.href}`, strToU8(file.content)])),
  });
}

/**
 * The frame (inside foliate-js's closed shadow root) whose document shows `text` (its whole
 * text: an SVG document has no body).
 */
export async function bookFrame(page: Page, text: string): Promise<Frame> {
  for (let attempt = 0; attempt < 100; attempt++) {
    // The newest frames first: foliate-js may keep the previous section's frame for a moment.
    for (const frame of page.frames().reverse()) {
      if (!frame.url().startsWith("blob:") || frame.isDetached()) continue;
      const shown = await frame.evaluate(() => document.documentElement?.textContent ?? "").catch(() => "");
      if (shown.includes(text)) return frame;
    }
    await Bun.sleep(100);
  }
  throw new Error(`no frame shows "${text}"`);
}

type Point = { x: number; y: number };

/** A finger dragged from one point to another in five moves (Chromium's touch input, through CDP). */
export async function touchDragger(context: BrowserContext, page: Page): Promise<(from: Point, to: Point) => Promise<void>> {
  const touch = await context.newCDPSession(page);
  return async (from, to) => {
    await touch.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [from] });
    for (let move = 1; move <= 5; move++) {
      const point = { x: from.x + ((to.x - from.x) * move) / 5, y: from.y + ((to.y - from.y) * move) / 5 };
      await touch.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [point] });
    }
    await touch.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  };
}
