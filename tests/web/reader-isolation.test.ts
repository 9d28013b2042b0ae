/**
 * No script from a book ever runs with the site's origin, whatever its markup (issue 27). A
 * corpus of hostile EPUBs, built here, each naming the site's own scripts (or pages) by their
 * absolute URLs with a marker query string: markup that hid the old per-document policy (a
 * comment, CDATA or a processing instruction before the head, an uppercase or namespaced head,
 * no head, an SVG spine document), and every other way in (`<base>`, meta refresh, `<iframe
 * srcdoc>`, `<object>`/`<embed>`, a form posting to the site, module scripts, event attributes,
 * `javascript:` links, the htmx gadget that copies the create-user form and posts a new admin).
 * Opened by an admin in Chromium, each book's text shows, and: no marked request leaves the
 * browser (request events), the server answers none of the site's scripts or admin pages
 * (its request log), the site's theme script never ran in a book's document, and no user,
 * library or API key changed. The readers' pages (EPUB and PDF) carry a fresh script nonce in
 * every response, never cached.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "playwright-core";
import { bearer, PASSWORD } from "../helpers/auth";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { asAdmin, bookFrame, DESKTOP, oneChapterEpub, readerLibrary, requestedPaths, useChromium, type EpubFile, type ReaderLibrary } from "./reader-support";

const TIMEOUT = 240_000;
const browser = useChromium();
const MARK = "lbx-hostile";
/** How Chromium reports a request that was never sent: the policy refused it. */
const BLOCKED = /^(csp|net::ERR_BLOCKED_BY_CSP)$/;

/** The spine document of a hostile book; `text` is what the reader must still show. */
interface HostileBook extends EpubFile {
  text: string;
  /** What a reader does in the chapter (clicks a link or a button). */
  interact?: (frame: Frame) => Promise<void>;
}

const XHTML_NS = "http://www.w3.org/1999/xhtml";

/** The site's scripts, named by absolute URL with the book's marker. */
function siteScripts(site: string, name: string): string {
  return [`${site}/static/vendor/htmx.min.js?${MARK}=${name}`, `${site}/static/js/theme.js?${MARK}=${name}`]
    .map((src) => `<script src="${src}"></script>`)
    .join("");
}

/**
 * The gadget shown in issue 27: the site's own htmx, loaded by the chapter, fetches the
 * create-user page (the same origin: the document is a same-origin blob), keeps its CSRF field and
 * posts a new admin with it.
 */
function htmxGadget(site: string, name: string): string {
  return `${siteScripts(site, name)}
<div id="loot" hx-get="${site}/admin/users" hx-trigger="load" hx-select="input[name=_csrf]" hx-swap="innerHTML"></div>
<div hx-post="${site}/admin/users" hx-trigger="load delay:1000ms" hx-include="#loot"
  hx-vals='{"username":"pwned-${name}","email":"","password":"pwned password 1234","role":"admin"}'></div>`;
}

const paragraph = (name: string) => `<p>Visible text of ${name}.</p>`;

function xhtml(name: string, parts: { prolog?: string; beforeHead?: string; head?: string; body?: string; bodyAttributes?: string }): HostileBook {
  return {
    text: `Visible text of ${name}.`,
    href: "chapter.xhtml",
    mediaType: "application/xhtml+xml",
    content: `<?xml version="1.0" encoding="utf-8"?>${parts.prolog ?? ""}
<html xmlns="${XHTML_NS}">${parts.beforeHead ?? ""}<head><title>${name}</title>${parts.head ?? ""}</head>
<body${parts.bodyAttributes ?? ""}>${paragraph(name)}${parts.body ?? ""}</body></html>`,
  };
}

/**
 * Clicks what `selector` names in the book's document; throws unless a click reached it (a
 * refusal proves nothing about a click that never happened).
 */
const clickIn = (selector: string) => async (frame: Frame) => {
  const clicked = await frame.evaluate((target) => {
    const element = document.querySelector<HTMLElement>(target);
    let reached = false;
    element?.addEventListener("click", () => (reached = true), { once: true });
    element?.click();
    return reached;
  }, selector);
  if (!clicked) throw new Error(`no click reached ${selector}`);
};

/** The corpus, by book name (file `<name>.epub`). */
function corpus(site: string): Record<string, HostileBook> {
  const marked = (name: string, path: string) => `${site}${path}?${MARK}=${name}`;
  return {
    comment: xhtml("comment", { beforeHead: "<!-- <head> -->", head: siteScripts(site, "comment"), body: htmxGadget(site, "comment") }),
    "cdata-pi": xhtml("cdata-pi", { prolog: "\n<?lbx <head> ?>", beforeHead: "<![CDATA[<head>]]>", head: siteScripts(site, "cdata-pi") }),
    "uppercase-head": xhtml("uppercase-head", { beforeHead: `<HEAD>${siteScripts(site, "uppercase-head")}</HEAD>` }),
    "namespaced-head": {
      text: "Visible text of namespaced-head.",
      href: "chapter.xhtml",
      mediaType: "application/xhtml+xml",
      content: `<?xml version="1.0" encoding="utf-8"?>
<h:html xmlns:h="${XHTML_NS}"><h:head><h:title>namespaced</h:title>${siteScripts(site, "namespaced-head").replaceAll("<script", "<h:script").replaceAll("</script>", "</h:script>")}</h:head>
<h:body><h:p>Visible text of namespaced-head.</h:p></h:body></h:html>`,
    },
    "no-head": {
      text: "Visible text of no-head.",
      href: "chapter.xhtml",
      mediaType: "application/xhtml+xml",
      content: `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="${XHTML_NS}">${siteScripts(site, "no-head")}<body>${paragraph("no-head")}${siteScripts(site, "no-head-body")}</body></html>`,
    },
    svg: {
      text: "Visible text of svg.",
      href: "chapter.svg",
      mediaType: "image/svg+xml",
      content: `<?xml version="1.0" encoding="utf-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="600" height="200" viewBox="0 0 600 200">
<text x="10" y="40" font-size="24">Visible text of svg.</text>
<script href="${marked("svg-href", "/static/js/theme.js")}"/>
<script xlink:href="${marked("svg-xlink", "/static/vendor/htmx.min.js")}"/>
</svg>`,
    },
    base: xhtml("base", { head: `<base href="${site}/static/js/"/><script src="theme.js?${MARK}=base"></script>` }),
    refresh: xhtml("refresh", { head: `<meta http-equiv="refresh" content="0; url=${marked("refresh", "/admin/users")}"/>` }),
    srcdoc: xhtml("srcdoc", {
      body: `<iframe srcdoc="&lt;script src=&quot;${marked("srcdoc", "/static/js/theme.js")}&quot;&gt;&lt;/script&gt;&lt;p&gt;framed&lt;/p&gt;"></iframe>`,
    }),
    "object-embed": xhtml("object-embed", {
      body: `<object data="${marked("object", "/admin/users")}" type="text/html"></object><embed src="${marked("embed", "/static/js/theme.js")}" type="text/html"/>`,
    }),
    form: {
      ...xhtml("form", {
        body: `<form action="${marked("form", "/admin/users")}" method="post"><input type="hidden" name="username" value="pwned-form"/>
<input type="hidden" name="password" value="pwned password 1234"/><input type="hidden" name="role" value="admin"/><button id="send" type="submit">Continue</button></form>`,
      }),
      interact: clickIn("#send"),
    },
    module: xhtml("module", {
      head: `<script type="module" src="${marked("module", "/static/js/app.js")}"></script><script type="module">import "${marked("module-import", "/static/js/theme.js")}";</script>`,
    }),
    events: xhtml("events", {
      bodyAttributes: ` onload="fetch('${marked("onload", "/static/js/theme.js")}')"`,
      body: `<img src="missing.png" alt="" onerror="fetch('${marked("onerror", "/static/js/theme.js")}')"/><svg xmlns="http://www.w3.org/2000/svg" onload="fetch('${marked("svg-onload", "/static/js/theme.js")}')"/>`,
    }),
    "javascript-link": {
      ...xhtml("javascript-link", { body: `<a id="go" href="javascript:fetch('${marked("javascript", "/static/js/theme.js")}')">Next chapter</a>` }),
      interact: clickIn("#go"),
    },
    "htmx-gadget": xhtml("htmx-gadget", { body: htmxGadget(site, "htmx-gadget") }),
  };
}

function epubOf(name: string, book: HostileBook): Uint8Array {
  return oneChapterEpub(`urn:longbox:hostile:${name}`, `Hostile ${name}`, { ...book, properties: "scripted" });
}

/** What the gadgets would change: users, libraries (with their settings), the admin's API keys. */
async function serverState(server: TestServer, token: string) {
  const read = async (path: string) => {
    const { status, body } = await server.json("GET", path, undefined, bearer(token));
    expect([path, status]).toEqual([path, 200]);
    return body;
  };
  return { users: await read("/api/v1/users"), libraries: await read("/api/v1/libraries"), apiKeys: await read("/api/v1/api-keys") };
}

/** Paths of the site's scripts and admin pages: none of them may be asked for while the books are open. */
const SITE_CODE = /^\/(static\/(js|vendor)\/|admin\b)/;

/** The reader page's policy as directive -> sources. */
function directives(response: Response): Record<string, string[]> {
  return Object.fromEntries(
    (response.headers.get("content-security-policy") ?? "").split(";").map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

forEachDatabase("reader isolation", (server) => {
  let library: ReaderLibrary;
  let books: Record<string, HostileBook>;
  beforeAll(async () => {
    books = corpus(server().url);
    library = await readerLibrary(server(), { "Pdf/test_cix.pdf": "pdf/comicbox/test_cix.pdf", "Alice/book.epub": "epub/stump/book.epub" }, async (root) => {
      mkdirSync(join(root, "Hostile"), { recursive: true });
      for (const [name, book] of Object.entries(books)) writeFileSync(join(root, "Hostile", `${name}.epub`), epubOf(name, book));
    });
  }, TIMEOUT);

  test("no hostile book's markup runs the site's scripts, reaches its pages or changes anything, and its text still shows", async () => {
    const before = await serverState(server(), library.adminToken);
    await asAdmin(browser(), server(), DESKTOP, async ({ context, page }) => {
      // The site's theme script, if it ever ran in a book's document, would mark it.
      await page.evaluate(() => localStorage.setItem("longbox-theme", "dark"));
      // Chromium reports a request the policy refused too, as one that failed "blocked by CSP";
      // any other ending means it went out.
      const marked: string[] = [];
      page.on("requestfinished", (request) => {
        if (request.url().includes(MARK)) marked.push(`${request.url()} answered`);
      });
      page.on("requestfailed", (request) => {
        const failure = request.failure()?.errorText ?? "";
        if (request.url().includes(MARK) && !BLOCKED.test(failure)) marked.push(`${request.url()} ${failure}`);
      });
      // The site's scripts are in the browser's cache from here on (hashed addresses, kept for good).
      await page.goto(`/read/${library.books["book.epub"]!.id}`);
      await page.waitForSelector("#epub-reader[data-ready]", { timeout: 20_000 });
      const logged = requestedPaths(server()).length;
      const failures: string[] = [];
      for (const [name, book] of Object.entries(books)) {
        await page.goto(`/read/${library.books[`${name}.epub`]!.id}`);
        const frame = await bookFrame(page, book.text).catch(() => null);
        if (!frame) {
          failures.push(`${name}: the text does not show`);
          continue;
        }
        // The second fence: an (X)HTML document carries the script-forbidding policy first in its
        // head (foliate-js later puts an empty <style> of its own before it).
        const fence = await frame
          .evaluate(() => Array.from(document.head?.children ?? []).find((element) => element.localName !== "style")?.getAttribute("content") ?? null)
          .catch(() => null);
        if (book.mediaType !== "image/svg+xml" && !fence?.includes("script-src 'none'")) failures.push(`${name}: no policy first in its head`);
        if (book.interact) await book.interact(frame).catch((error: Error) => failures.push(`${name}: ${error.message}`));
        // Time for delayed triggers, refreshes and the gadget's two requests.
        await Bun.sleep(2500);
        const themed = await Promise.all(page.frames().map((each) => each.evaluate(() => document.documentElement?.getAttribute("data-theme")).catch(() => null)));
        if (themed.slice(1).some(Boolean)) failures.push(`${name}: the site's theme script ran in a book's document`);
      }
      await context.close();
      const serverSaw = requestedPaths(server()).slice(logged).filter((path) => SITE_CODE.test(path));
      const after = await serverState(server(), library.adminToken);
      expect({ failures, marked, serverSaw, after }).toEqual({ failures: [], marked: [], serverSaw: [], after: before });
    });
  }, TIMEOUT);

  test("the EPUB and PDF readers' pages allow only scripts carrying a nonce that is new in every response, and are never cached", async () => {
    const cookie = await webCookie(server());
    for (const file of ["book.epub", "test_cix.pdf"]) {
      const path = `/read/${library.books[file]!.id}`;
      const nonces = new Set<string>();
      const conditional: Record<string, string> = { "if-none-match": "*", "if-modified-since": new Date().toUTCString() };
      for (const headers of [{}, {}, conditional]) {
        const response = await server().fetch(path, { headers: { cookie, ...headers } });
        expect([file, response.status]).toEqual([file, 200]);
        expect(response.headers.get("cache-control")).toContain("no-store");
        expect(response.headers.get("etag")).toBeNull();
        const policy = directives(response);
        const nonce = /^'nonce-([A-Za-z0-9+/=_-]{22,})'$/.exec(policy["script-src"]?.join(" ") ?? "")?.[1];
        expect([file, policy["script-src"]?.length, nonce !== undefined]).toEqual([file, 1, true]);
        expect(policy["object-src"]).toEqual(["'none'"]);
        expect(policy["base-uri"]).toEqual(["'none'"]);
        nonces.add(nonce!);
        // Every script of the page (htmx, the site's and the reader's) carries it; nothing inline.
        // The one exception is the layout's JSON data block of the page's words (#page-messages):
        // a browser never runs `type="application/json"`, so it needs no nonce.
        const html = await response.text();
        const dataBlock = /<script type="application\/json" id="page-messages">[^<]*<\/script>/;
        expect(html).toMatch(dataBlock);
        const code = html.replace(dataBlock, "");
        const tags = [...code.matchAll(/<script\b[^>]*>|<link\b[^>]*rel="modulepreload"[^>]*>/g)].map((match) => match[0]);
        expect(tags.length).toBeGreaterThanOrEqual(5);
        for (const tag of tags) expect([file, tag]).toEqual([file, expect.stringContaining(`nonce="${nonce}"`)]);
        expect(code).not.toMatch(/<script\b[^>]*>[^<\s]/);
      }
      expect([file, nonces.size]).toEqual([file, 3]);
    }
  });

  test("in Chromium the PDF and EPUB readers run with the nonce policy: no script of theirs is refused", async () => {
    await asAdmin(browser(), server(), DESKTOP, async ({ page, errors }) => {
      await page.goto(`/read/${library.books["test_cix.pdf"]!.id}`);
      await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLImageElement>("#comic-reader img")).some((image) => image.complete && image.naturalWidth > 0), undefined, { timeout: 20_000 });
      await page.goto(`/read/${library.books["book.epub"]!.id}`);
      await page.waitForSelector("#epub-reader[data-ready]", { timeout: 20_000 });
      expect(errors).toEqual([]);
    });
  }, TIMEOUT);
});

/** A session cookie from the sign-in form. */
async function webCookie(server: TestServer): Promise<string> {
  const response = await server.fetch("/login", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
    body: new URLSearchParams({ username: "admin", password: PASSWORD }).toString(),
  });
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}
