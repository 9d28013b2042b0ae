/**
 * Time to the first page (issue 31), in Debian's Chromium: from the click on Read on a book's
 * page to the reader's first page painted (its `reader:first-page` mark, taken in the frame
 * after the page image is decoded, or after an EPUB's first section is laid out), for a book
 * opened for the first time since the server started (its page and archive caches emptied),
 * per format, at 1440 px and at 375 px (DPR 2). The reference, in the same run: a bare HTML
 * page showing the same first page (the image bytes Longbox serves at that width, or the EPUB's
 * first document in a frame with the book's stylesheets and images beside it, marked once the
 * frame has loaded, as foliate-js waits for it), reached by a click on a link, from a bare Bun.serve.
 *
 *   bun bench/reader-first-page.ts [--runs 3] [--pause 0]
 *
 * `--pause MS`: how long the book's page is looked at before Read is clicked. At 0 (the issue's
 * measurement) Read is clicked as soon as the page has loaded, which no person does: the book's
 * page has the browser prefetch the reader's first screen (src/http/web/reader.ts,
 * readerPrefetch), and at 0 that prefetch has only just begun. With a pause, the table shows
 * what a person who looks at the page for that long gets: the prefetched page, not a faster
 * rendering.
 *
 * Each run restarts the compiled server (caches emptied) before each screen and opens every
 * book once;
 * each browser context first opens a small warm-up book in each reader, so that the readers'
 * code is in the browser's cache as it is for anyone who has read before. Prints a Markdown table.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { buildIsolatedBinary, type IsolatedBinary } from "../scripts/isolated-binary";
import { startServerProcess } from "../scripts/server-process";
import { loadAverage, markdownTable, median, ratio } from "./measure";
import { pageUrl, pageWidth, type OpeningState } from "../static/js/reader/layout.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, pause: { type: "string", default: "0" } } });
const RUNS = Number(values.runs);
const PAUSE_MS = Number(values.pause);
const FIXTURES = "/work/shared/fixtures";
const PASSWORD = "benchmark password";

const BOOKS = [
  { format: "CBZ", fixture: "cbz/stump/science_comics_001.cbz", file: "CBZ/cbz.cbz" },
  { format: "CBR", fixture: "cbr/comicbox/Captain Science #001-cbi.cbr", file: "CBR/cbr.cbr" },
  { format: "CB7", fixture: "unsupported/comicbox/Captain Science #001.cb7", file: "CB7/cb7.cb7" },
  { format: "CBT", fixture: "unsupported/comicbox/Captain Science #001-cix.cbt", file: "CBT/cbt.cbt" },
  { format: "PDF (scanned form)", fixture: "pdf/pdfjs/issue12963.pdf", file: "PDF/pdf.pdf" },
  { format: "EPUB", fixture: "epub/stump/book.epub", file: "EPUB/epub.epub" },
] as const;
/** The comic reader's state for a book opened afresh by a user who changed no setting. */
const OPENED_AFRESH: OpeningState = { page: 1, mode: "ltr", fit: "screen", spread: "auto" };
/** Opened first in every browser context: the readers' code, not these books, gets cached. */
const WARM_UP = [
  { fixture: "cbz/stump/science_comics_001.cbz", file: "Warm/warm.cbz", mark: "#comic-reader[data-ready]" },
  { fixture: "epub/idpf-built/hefty-water.epub", file: "Warm/warm.epub", mark: "#epub-reader[data-ready]" },
];
const SCREENS: Record<string, BrowserContextOptions> = {
  "1440 px": { viewport: { width: 1440, height: 900 } },
  "375 px, DPR 2": { viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

interface Longbox {
  url: string;
  stop(): Promise<void>;
}

/** The compiled server on SQLite in `dataDir`, started fresh (its page and archive caches emptied). */
async function startLongbox(binary: IsolatedBinary, dataDir: string): Promise<Longbox> {
  for (const cache of ["page-cache", "archive-cache"]) rmSync(join(dataDir, cache), { recursive: true, force: true });
  const configPath = join(dataDir, "config.yaml");
  writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", port: 0, data_dir: dataDir }, database: { type: "sqlite" } }));
  const { url, child } = await startServerProcess([binary.path, "serve", "--config", configPath], { cwd: binary.workDir, env: binary.env });
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

async function api(server: Longbox, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return response.json();
}

/** A file the reference serves: its type and bytes. */
interface ReferenceFile {
  type: string;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * What the reference shows for a book: the first page's bytes at the screen's width, or for an
 * EPUB its first document in a frame, with every resource of the book beside it at the same
 * relative addresses (its stylesheets and images load as they do in the reader).
 */
type ReferenceContent = { kind: "image"; path: string; file: ReferenceFile } | { kind: "document"; entry: string; files: Map<string, ReferenceFile> };

async function referenceContent(server: Longbox, token: string, book: { id: string; fileFormat: string }, screen: BrowserContextOptions): Promise<ReferenceContent> {
  const headers = { authorization: `Bearer ${token}` };
  const download = async (url: string | URL): Promise<ReferenceFile> => {
    const response = await fetch(url, { headers });
    return { type: response.headers.get("content-type") ?? "application/octet-stream", body: new Uint8Array(await response.arrayBuffer()) };
  };
  if (book.fileFormat === "epub") {
    const manifestUrl = `${server.url}/api/v1/books/${book.id}/manifest`;
    const manifest = await api(server, token, "GET", `/api/v1/books/${book.id}/manifest`);
    // Hrefs lead to /api/v1/books/<id>/resource/<path in the book, each segment encoded>.
    const inBook = (href: string) => href.split("#")[0]!.split("/resource/")[1]!;
    const files = new Map<string, ReferenceFile>();
    for (const link of [...manifest.readingOrder, ...(manifest.resources ?? [])] as { href: string }[]) {
      if (!files.has(inBook(link.href))) files.set(inBook(link.href), await download(new URL(link.href, manifestUrl)));
    }
    return { kind: "document", entry: inBook(manifest.readingOrder[0].href), files };
  }
  // The reader's request for page 1, opened afresh with the default settings: at the width the
  // page takes on the screen, in device pixels, at the next step (static/js/reader/layout.js).
  const [first] = (await api(server, token, "GET", `/api/v1/books/${book.id}/pages`)) as { width: number | null; height: number | null }[];
  const viewport = { clientWidth: screen.viewport!.width, clientHeight: screen.viewport!.height };
  const size = first?.width && first.height ? ([first.width, first.height] as const) : null;
  const path = pageUrl(`/api/v1/books/${book.id}/pages/`, 1, pageWidth(OPENED_AFRESH, size, 1, viewport, screen.deviceScaleFactor ?? 1));
  return { kind: "image", path, file: await download(`${server.url}${path}`) };
}

/**
 * A bare Bun.serve: `/start/<key>` links to `/show/<key>`, which shows the key's image or
 * document (`/content/<key>/...`) and marks when it is painted: after the image is decoded, or
 * after the document's frame has loaded (its stylesheets and images in).
 */
function startReference(contents: Map<string, ReferenceContent>) {
  const mark = `<script>
    const done = () => requestAnimationFrame(() => performance.mark("reader:first-page"));
    const image = document.querySelector("img");
    if (image) image.decode().then(done, done); else document.querySelector("iframe").addEventListener("load", done);
  </script>`;
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const [, kind, encodedKey = "", ...rest] = new URL(request.url).pathname.split("/");
      if (kind === "start") return new Response(`<!doctype html><a href="/show/${encodedKey}">Read</a>`, { headers: { "content-type": "text/html" } });
      const content = contents.get(decodeURIComponent(encodedKey));
      if (!content) return new Response("not found", { status: 404 });
      if (kind === "content") {
        const file = content.kind === "image" ? content.file : content.files.get(rest.join("/"));
        return file ? new Response(file.body, { headers: { "content-type": file.type } }) : new Response("not found", { status: 404 });
      }
      const shown =
        content.kind === "document"
          ? `<iframe src="/content/${encodedKey}/${content.entry}" style="border:0;width:100vw;height:100vh"></iframe>`
          : `<img src="/content/${encodedKey}" alt="" style="max-width:100vw;max-height:100vh">`;
      const html = `<!doctype html><meta name="viewport" content="width=device-width"><body style="margin:0">${shown}${mark}</body>`;
      return new Response(html, { headers: { "content-type": "text/html" } });
    },
  });
}

interface FirstPage {
  /** Click on Read to the first page painted. */
  total: number;
  /** Click to the page's HTML received. */
  html: number;
  /** Click to the first request for the book's content (the reader's code has started). */
  firstRequest: number;
  /** From the first request for the book's content to the last one answered before the first page was painted. */
  bookRequests: number;
}

/** When the first page was painted, and where the time went (resource timing of the book's requests). */
async function firstPage(page: Page): Promise<FirstPage> {
  await page.waitForFunction(() => performance.getEntriesByName("reader:first-page").length > 0, undefined, { timeout: 60_000 });
  return page.evaluate(() => {
    const total = performance.getEntriesByName("reader:first-page")[0]!.startTime;
    const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
    const book = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter(
      (entry) => entry.responseEnd <= total && (/\/pages\/\d+/.test(entry.name) || entry.name.includes("/resource/") || entry.name.startsWith(location.origin + "/content/")),
    );
    const firstRequest = book.length > 0 ? Math.min(...book.map((entry) => entry.startTime)) : total;
    const lastResponse = book.length > 0 ? Math.max(...book.map((entry) => entry.responseEnd)) : firstRequest;
    return { total, html: navigation?.responseEnd ?? 0, firstRequest, bookRequests: lastResponse - firstRequest };
  });
}

async function signIn(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Username").fill("bench");
  await page.getByLabel("Password").fill(PASSWORD);
  await Promise.all([page.waitForURL((url) => url.pathname === "/"), page.getByRole("button", { name: "Sign in", exact: true }).click()]);
}

const binary = await buildIsolatedBinary();
const browser: Browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
const dataDir = binary.scratch("data");
const library = join(dataDir, "library");
for (const entry of [...BOOKS, ...WARM_UP]) {
  mkdirSync(join(library, entry.file, ".."), { recursive: true });
  copyFileSync(join(FIXTURES, entry.fixture), join(library, entry.file));
}
const times: Record<string, { longbox: FirstPage[]; reference: number[] }> = {};
try {
  // Set up: an admin, the library scanned and its thumbnails made, the references fetched.
  let server = await startLongbox(binary, dataDir);
  const json = { "content-type": "application/json" };
  await fetch(`${server.url}/api/v1/setup`, { method: "POST", headers: json, body: JSON.stringify({ username: "bench", password: PASSWORD }) });
  const login = async () =>
    ((await (await fetch(`${server.url}/api/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ username: "bench", password: PASSWORD }) })).json()) as { token: string }).token;
  let token = await login();
  const created = await api(server, token, "POST", "/api/v1/libraries", { name: "Bench", path: library });
  await api(server, token, "POST", `/api/v1/libraries/${created.id}/scan`);
  for (let status: any = {}; status.status !== "completed" || status.thumbnailsPending; await Bun.sleep(100)) {
    status = await api(server, token, "GET", `/api/v1/libraries/${created.id}/scan-status`);
    if (status.status === "failed") throw new Error(status.failureReason);
  }
  const listed = (await api(server, token, "GET", `/api/v1/books?libraryId=${created.id}&pageSize=50`)).data as { id: string; filePath: string; fileFormat: string }[];
  const bookOf = (file: string) => listed.find((book) => book.filePath.endsWith(file))!;
  const contents = new Map<string, ReferenceContent>();
  for (const [screenName, screen] of Object.entries(SCREENS)) {
    for (const entry of BOOKS) contents.set(`${screenName}:${entry.format}`, await referenceContent(server, token, bookOf(entry.file), screen));
  }
  const reference = startReference(contents);

  for (let run = 0; run < RUNS; run++) {
    for (const [screenName, screen] of Object.entries(SCREENS)) {
      await server.stop();
      server = await startLongbox(binary, dataDir);
      token = await login();
      // Opened for the first time: no progress to resume from. Cleared here, not as each book is
      // left: a reader saves its position as its page goes away (an EPUB's, once laid out).
      for (const entry of BOOKS) {
        await fetch(`${server.url}/api/v1/books/${bookOf(entry.file).id}/progress`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
      }
      const context = await browser.newContext({ ...screen, baseURL: server.url });
      const page = await context.newPage();
      await signIn(page);
      for (const warm of WARM_UP) {
        await page.goto(`/read/${bookOf(warm.file).id}`);
        await page.waitForSelector(warm.mark, { timeout: 60_000 });
      }
      for (const entry of BOOKS) {
        const book = bookOf(entry.file);
        const key = `${screenName}:${entry.format}`;
        times[key] ??= { longbox: [], reference: [] };
        // Interleaved: the reference, then Longbox, for each book.
        const bare = await context.newPage();
        await bare.goto(`${reference.url.origin}/start/${encodeURIComponent(key)}`);
        await Promise.all([bare.waitForURL(/\/show\//), bare.getByRole("link", { name: "Read" }).click()]);
        times[key].reference.push((await firstPage(bare)).total);
        await bare.close();
        await page.goto(`/books/${book.id}`);
        await Bun.sleep(PAUSE_MS);
        await Promise.all([page.waitForURL((url) => url.pathname === `/read/${book.id}`), page.getByRole("link", { name: /^Read$/ }).first().click()]);
        times[key].longbox.push(await firstPage(page));
        // The reference must show what the reader showed: the same page at the same width.
        const shown = contents.get(key)!;
        if (shown.kind === "image" && !(await page.evaluate((path) => performance.getEntriesByName(location.origin + path).length > 0, shown.path))) {
          throw new Error(`${key}: the reader did not ask for ${shown.path}, the reference's page`);
        }
      }
      await context.close();
    }
  }
  reference.stop(true);
  await server.stop();
} finally {
  await browser.close();
  binary.remove();
}

const rows = Object.entries(times).map(([key, { longbox, reference }]) => {
  const [screen, format] = key.split(":");
  const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
  const of = (field: keyof FirstPage) => ms(longbox.map((entry) => entry[field]));
  const total = median(longbox.map((entry) => entry.total));
  return [format!, screen!, ms(reference), `${total.toFixed(0)} ms`, ratio(total, median(reference)), of("html"), of("firstRequest"), of("bookRequests")];
});
console.log(`load average at the end: ${loadAverage()}; ${RUNS} run(s), Read clicked ${PAUSE_MS} ms after the book's page loaded, medians`);
console.log(
  markdownTable(
    ["format", "screen", "reference: bare page", "Longbox: click on Read to first page", "ratio", "HTML received", "first request for the book", "book's requests (first sent to last answered)"],
    rows,
  ),
);
