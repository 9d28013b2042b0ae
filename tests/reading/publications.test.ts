import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { unzipSync, zipSync } from "fflate";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { fixture } from "../helpers/fixtures";
import { bookByFile } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { bearer, fetchAs, hideSeriesFrom, scan, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Novels/book.epub": "epub/stump/book.epub",
  "Novels/SmokeTest-EPUB2.epub": "epub/readium/SmokeTest-EPUB2.epub",
  "Comics/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Hidden/wasteland.epub": "epub/idpf-built/wasteland.epub",
};

/** The Readium Web Publication Manifest schema with everything it references, from the shared fixtures. */
function manifestValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const root = fixture("schemas/opds/v2");
  const files = ["readium", "drafts"]
    .flatMap((folder) => readdirSync(join(root, folder), { recursive: true }).map((name) => join(root, folder, String(name))))
    .filter((file) => file.endsWith(".schema.json"));
  for (const file of files) ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
  const validate = ajv.getSchema("https://readium.org/webpub-manifest/schema/publication.schema.json");
  if (!validate) throw new Error("the publication schema did not load");
  return validate;
}

/** A GET sent byte for byte, so the path reaches the server without a client normalising `..` away. */
function rawGet(server: TestServer, path: string, token: string): Promise<number> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    });
    let head = "";
    socket.on("data", (chunk) => (head += chunk.toString("latin1")));
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
    socket.on("error", reject);
  });
}

forEachDatabase("EPUB manifest and resources", (server) => {
  let library: ScannedLibrary;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
    await hideSeriesFrom(server(), library.readerId, library.books["wasteland.epub"]!.seriesId);
  });
  const book = (name: string) => library.books[name]!;
  const asReader = (path: string, init: RequestInit = {}) => fetchAs(server(), library.readerToken, path, init);

  test("the manifest is a valid Readium Web Publication Manifest pointing at the resource endpoint", async () => {
    const validate = manifestValidator();
    for (const name of ["book.epub", "SmokeTest-EPUB2.epub"]) {
      const id = book(name).id;
      const response = await asReader(`/api/v1/books/${id}/manifest`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("application/webpub+json");
      const manifest = await response.json();
      const valid = validate(manifest);
      expect({ name, errors: validate.errors ?? null }).toEqual({ name, errors: null });
      expect(valid).toBe(true);
      expect(manifest.links).toContainEqual({ rel: "self", href: `/api/v1/books/${id}/manifest`, type: "application/webpub+json" });
      expect(manifest.readingOrder.length).toBe(book(name).pageCount);
      for (const link of [...manifest.readingOrder, ...manifest.resources, ...manifest.toc]) {
        expect(link.href).toStartWith(`/api/v1/books/${id}/resource/`);
      }
    }
    const alice = await (await asReader(`/api/v1/books/${book("book.epub").id}/manifest`)).json();
    expect(alice.metadata).toMatchObject({ title: "Alice's Adventures in Wonderland", author: [{ name: "Lewis Carroll" }], language: "en", layout: "reflowable" });
    expect(alice.resources).toContainEqual(expect.objectContaining({ rel: "cover", type: "image/jpeg" }));
    expect(alice.toc.length).toBeGreaterThan(3);
    const smoke = await (await asReader(`/api/v1/books/${book("SmokeTest-EPUB2.epub").id}/manifest`)).json();
    // EPUB 2: the table of contents comes from the NCX.
    expect(smoke.toc.map((entry: { title: string }) => entry.title)).toContain("1. King Solomon's Mines");
  });

  test("every reading-order and toc href serves its resource with the right type", async () => {
    const id = book("book.epub").id;
    const manifest = await (await asReader(`/api/v1/books/${id}/manifest`)).json();
    const first = manifest.readingOrder[0];
    const chapter = await asReader(first.href);
    expect(chapter.status).toBe(200);
    expect(chapter.headers.get("content-type")).toBe(first.type);
    expect(await chapter.text()).toContain("<html");
    const etag = chapter.headers.get("etag")!;
    expect((await asReader(first.href, { headers: { "if-none-match": etag } })).status).toBe(304);
    const tocTarget = await asReader(manifest.toc[0].href.split("#")[0]);
    expect(tocTarget.status).toBe(200);
    await tocTarget.arrayBuffer();
    const cover = manifest.resources.find((link: { rel?: string }) => link.rel === "cover");
    const image = await asReader(cover.href);
    expect(image.headers.get("content-type")).toBe("image/jpeg");
    expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const container = await asReader(`/api/v1/books/${id}/resource/META-INF/container.xml`);
    expect(container.status).toBe(200);
    await container.arrayBuffer();
  });

  test("an EPUB rewritten before a rescan: its resources are the new file's, under a validator of its own", async () => {
    const path = join(library.root, "Rewritten", "rewritten.epub");
    mkdirSync(dirname(path), { recursive: true });
    const original = unzipSync(readFileSync(fixture("epub/stump/book.epub")));
    const chapter = Object.keys(original).find((name) => name.endsWith(".xhtml") || name.endsWith(".html"))!;
    // The same book with other text in one chapter ("mimetype" stays first and stored, as EPUB wants).
    const zipped = (chapterText: string) =>
      zipSync({ ...original, mimetype: [original.mimetype!, { level: 0 }], [chapter]: new TextEncoder().encode(chapterText) });
    writeFileSync(path, zipped("<html><body><p>before the rewrite</p></body></html>"));
    await scan(server(), library.adminToken, library.libraryId);
    const { id } = await bookByFile(server(), bearer(library.adminToken), library.libraryId, "rewritten.epub");
    const url = `/api/v1/books/${id}/resource/${chapter}`;
    const before = await asReader(url);
    expect(await before.text()).toContain("before the rewrite");
    const oldEtag = before.headers.get("etag")!;

    writeFileSync(path, zipped("<html><body><p>after the rewrite, longer than before</p></body></html>"));
    const stale = await asReader(url, { headers: { "if-none-match": oldEtag } });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toContain("after the rewrite");
    const newEtag = stale.headers.get("etag")!;
    expect(newEtag).not.toBe(oldEtag);
    expect((await asReader(url, { headers: { "if-none-match": newEtag } })).status).toBe(304);
  });

  test("resource paths cannot leave the book: traversal, encoded traversal, absolute paths and backslashes are 404", async () => {
    const id = book("book.epub").id;
    const base = `/api/v1/books/${id}/resource`;
    const attempts = [
      `${base}/../../../../etc/passwd`,
      `${base}/OEBPS/../../../etc/passwd`,
      `${base}/%2e%2e/%2e%2e/etc/passwd`,
      `${base}/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd`,
      `${base}/..%2f..%2fetc%2fpasswd`,
      `${base}/%2fetc%2fpasswd`,
      `${base}//etc/passwd`,
      `${base}/OEBPS%5c..%5c..%5cetc%5cpasswd`,
      `${base}/%00`,
      `${base}/%E0%A4%A`,
      `${base}/OEBPS/no-such-file.xhtml`,
      `${base}/`,
    ];
    for (const path of attempts) {
      const status = await rawGet(server(), path, library.readerToken);
      expect({ path, status }).toEqual({ path, status: 404 });
    }
    // The same file by its plain path is served, so the refusals above are about the path alone.
    expect(await rawGet(server(), `${base}/OEBPS/wrap0000.xhtml`, library.readerToken)).toBe(200);
  });

  test("non-EPUB books have no manifest or resources; unknown, hidden and anonymous requests fail", async () => {
    const cbz = book("Captain Science #001.cbz").id;
    const manifest = await server().json("GET", `/api/v1/books/${cbz}/manifest`, undefined, bearer(library.readerToken));
    expect(manifest.status).toBe(404);
    expect(manifest.body.message).toContain("cannot be read as a web publication");
    expect((await asReader(`/api/v1/books/${cbz}/resource/ComicInfo.xml`)).status).toBe(404);
    expect((await asReader(`/api/v1/books/${crypto.randomUUID()}/manifest`)).status).toBe(404);
    const hidden = book("wasteland.epub").id;
    expect((await asReader(`/api/v1/books/${hidden}/manifest`)).status).toBe(404);
    expect((await asReader(`/api/v1/books/${hidden}/resource/EPUB/wasteland-content.xhtml`)).status).toBe(404);
    expect((await fetchAs(server(), library.adminToken, `/api/v1/books/${hidden}/manifest`)).status).toBe(200);
    expect((await fetchAs(server(), undefined, `/api/v1/books/${book("book.epub").id}/manifest`)).status).toBe(401);
    expect((await fetchAs(server(), undefined, `/api/v1/books/${book("book.epub").id}/resource/META-INF/container.xml`)).status).toBe(401);
  });
});
