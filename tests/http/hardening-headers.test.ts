/**
 * Response headers (issue #10, items 5 and 10): security headers on every response; EPUB
 * resources sandboxed with a media type from the server's own table; the API reference loads
 * nothing from another origin.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import { adminSession, basic, bearer, PASSWORD } from "../helpers/auth";
import { bookByFile, createLibrary, makeCbz, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { launchChromium } from "../web/browser";

const text = (value: string) => new TextEncoder().encode(value);

const SCRIPTED_XHTML = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Evil</title><link rel="stylesheet" href="style.css"/></head>
<body><p>Chapter</p><script>fetch("/api/v1/users").then(r => r.text()).then(t => parent.postMessage(t, "*"))</script></body></html>`;

/** An EPUB whose manifest declares active content and media types made to break headers. */
function hostileEpub(): Uint8Array {
  const opf = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Hostile Book</dc:title><dc:identifier id="id">urn:uuid:hostile</dc:identifier><dc:language>en</dc:language></metadata>
  <manifest>
    <item id="c1" href="chapter.xhtml" media-type="text/html"/>
    <item id="svg" href="drawing.svg" media-type="image/svg+xml"/>
    <item id="crlf" href="split.xhtml" media-type="application/xhtml+xml&#13;&#10;Set-Cookie: pwned=1"/>
    <item id="ffff" href="odd.css" media-type="text/css\uFFFF"/>
    <item id="css" href="style.css" media-type="TEXT/CSS"/>
    <item id="font" href="face.woff" media-type="application/font-woff"/>
    <item id="js" href="app.js" media-type="application/javascript"/>
    <item id="weird" href="notes.dat" media-type="text/html; x=&quot;&#10;&quot;"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="crlf"/></spine>
</package>`;
  return zipSync({
    mimetype: [text("application/epub+zip"), { level: 0 }],
    "META-INF/container.xml": text(`<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
    "OEBPS/content.opf": text(opf),
    "OEBPS/chapter.xhtml": text(SCRIPTED_XHTML),
    "OEBPS/split.xhtml": text(SCRIPTED_XHTML),
    "OEBPS/drawing.svg": text(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>`),
    "OEBPS/odd.css": text("p { color: red }"),
    "OEBPS/style.css": text("p { color: blue }"),
    "OEBPS/face.woff": new Uint8Array([0x77, 0x4f, 0x46, 0x46, 0, 1, 0, 0]),
    "OEBPS/app.js": text('alert("book script")'),
    "OEBPS/notes.dat": text("<script>alert(1)</script>"),
  });
}

function expectSecurityHeaders(label: string, response: Response) {
  expect({
    label,
    nosniff: response.headers.get("x-content-type-options"),
    referrer: response.headers.get("referrer-policy"),
    frameOptions: response.headers.get("x-frame-options"),
    frameAncestors: response.headers.get("content-security-policy")?.includes("frame-ancestors 'none'"),
  }).toEqual({ label, nosniff: "nosniff", referrer: "same-origin", frameOptions: "DENY", frameAncestors: true });
}

forEachDatabase("security headers", (server) => {
  let token: string;
  let epubId: string;
  let cbzId: string;

  beforeAll(async () => {
    token = (await adminSession(server())).token;
    const root = join(server().dir, "libraries", "Headers");
    mkdirSync(join(root, "Hostile"), { recursive: true });
    writeFileSync(join(root, "Hostile", "Hostile Book.epub"), hostileEpub());
    await makeCbz(join(root, "Comic", "Comic 1.cbz"), { pages: 1 });
    const library = await createLibrary(server(), bearer(token), { name: "Headers", path: root });
    await scanToCompletion(server(), token, library.id);
    epubId = (await bookByFile(server(), bearer(token), library.id, ".epub")).id;
    cbzId = (await bookByFile(server(), bearer(token), library.id, ".cbz")).id;
  });

  test("every kind of response carries nosniff, Referrer-Policy and the framing rules", async () => {
    const auth = bearer(token);
    const cases: [string, string, Record<string, string>][] = [
      ["health", "/health", {}],
      ["401", "/api/v1/libraries", {}],
      ["404 route", "/no/such/route", {}],
      ["400", "/api/v1/books?page=0", auth],
      ["JSON list", "/api/v1/books", auth],
      ["page image", `/api/v1/books/${cbzId}/pages/1`, auth],
      ["scaled page", `/api/v1/books/${cbzId}/pages/1?width=100`, auth],
      ["download", `/api/v1/books/${cbzId}/file`, auth],
      ["OPDS", "/opds/v1.2/catalog", basic("admin", PASSWORD)],
      ["OpenAPI JSON", "/api/docs/json", {}],
      ["API reference", "/api/docs", {}],
    ];
    for (const [label, path, headers] of cases) {
      const response = await server().fetch(path, { headers });
      await response.arrayBuffer();
      expectSecurityHeaders(label, response);
    }
    const notModified = await server().fetch(`/api/v1/books/${cbzId}/pages/1`, { headers: { ...auth, "if-none-match": "*" } });
    expect(notModified.status).toBe(304);
    expectSecurityHeaders("304", notModified);
  });

  test("EPUB resources are sandboxed without scripts, typed from the server's table", async () => {
    const expected: Record<string, string> = {
      "OEBPS/chapter.xhtml": "text/html",
      "OEBPS/drawing.svg": "image/svg+xml",
      "OEBPS/split.xhtml": "application/xhtml+xml",
      "OEBPS/odd.css": "text/css",
      "OEBPS/style.css": "text/css",
      "OEBPS/face.woff": "font/woff",
      "OEBPS/app.js": "application/octet-stream",
      "OEBPS/notes.dat": "text/html",
    };
    for (const [path, type] of Object.entries(expected)) {
      const response = await server().fetch(`/api/v1/books/${epubId}/resource/${path}`, { headers: bearer(token) });
      await response.arrayBuffer();
      const csp = response.headers.get("content-security-policy") ?? "";
      const directives = csp.split(";").map((directive) => directive.trim());
      expect({
        path,
        status: response.status,
        type: response.headers.get("content-type"),
        nosniff: response.headers.get("x-content-type-options"),
        cookie: response.headers.get("set-cookie"),
      }).toEqual({ path, status: 200, type, nosniff: "nosniff", cookie: null });
      expect(directives).toContain("sandbox allow-same-origin");
      expect(directives).toContain("default-src 'none'");
      expect(csp).not.toContain("allow-scripts");
      expect(csp).not.toContain("script-src");
      expect(directives).toContain("frame-ancestors 'self'");
      expect(response.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    }
  });

  test("the API reference is served from the binary, with a CSP, and renders in Chromium", async () => {
    const page = await server().fetch("/api/docs");
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toContain("cdn.jsdelivr.net");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    const script = /<script src="([^"]+)"/.exec(html)?.[1];
    expect(script).toBe("/api/docs/scalar.js");
    const bundle = await server().fetch(script!);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toStartWith("text/javascript");
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);

    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const foreign: string[] = [];
      const origin = new URL(server().url).origin;
      tab.on("request", (request) => {
        const url = new URL(request.url());
        if (url.protocol.startsWith("http") && url.origin !== origin) foreign.push(request.url());
      });
      await tab.goto(`${server().url}/api/docs`);
      // Scalar rendered the document it fetched from /api/docs/json: its description is on the page.
      await tab.getByText("Catalogue and reading API of Longbox").first().waitFor({ timeout: 30_000 });
      expect(foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
