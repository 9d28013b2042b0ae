/**
 * OPDS over HTTP on both databases: every feed kind of both versions fetched as a reader and
 * validated (jing for OPDS 1.2, PSE links and the OpenSearch description; ajv for OPDS 2),
 * acquisition links followed to the real bytes, page streaming followed to real images with
 * progress going both ways, text escaping, and credentials.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { zipSync } from "fflate";
import { adminSession, basic, bearer, createUser, login, PASSWORD } from "../helpers/auth";
import { sha256 } from "../helpers/digests";
import { comicInfo, createLibrary, makeCbz, placeFixture, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import {
  ACQUISITION_TYPE,
  correctedSchemas,
  expectValidWithJing,
  linkOf,
  NAVIGATION_TYPE,
  opds2Validator,
  pageStreamLinks,
  parseFeed,
  type AtomEntry,
} from "./support";

const TRICKY = `Tom & Jerry <"Special"> 東京`;

interface World {
  libraryId: string;
  root: string;
  reader: Record<string, string>;
  readerApiKey: string;
  /** Book ids by file name. */
  books: Record<string, { id: string; seriesId: string; pageCount: number; filePath: string }>;
}

/** A CBZ whose two pages are WebP images (which OPDS-PSE does not allow). */
async function webpCbz(path: string): Promise<void> {
  const page = await sharp({ create: { width: 40, height: 60, channels: 3, background: { r: 200, g: 10, b: 10 } } }).webp().toBuffer();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, zipSync({ "001.webp": new Uint8Array(page), "002.webp": new Uint8Array(page) }, { level: 0 }));
}

forEachDatabase("OPDS feeds", (server) => {
  const world = {} as World;
  const schemas = correctedSchemas();
  const validator = opds2Validator();
  afterAll(() => schemas.remove());

  beforeAll(async () => {
    const adminToken = (await adminSession(server())).token;
    await createUser(server(), adminToken, "reader");
    const readerToken = (await login(server(), "reader")).token;
    world.reader = basic("reader", PASSWORD);
    const key = await server().json("POST", "/api/v1/api-keys", { name: "opds" }, bearer(readerToken));
    world.readerApiKey = key.body.key;

    world.root = join(server().dir, "libraries", "Comics");
    const info = (number: number) =>
      comicInfo({
        Title: number === 1 ? TRICKY : `${TRICKY} (part ${number})`,
        Series: TRICKY,
        Number: number,
        Summary: `A "quoted" summary & <b>markup</b>, part ${number}`,
        Writer: "Jane Doe",
        Penciller: "John Roe",
        Publisher: "Pub & Co",
        Genre: "Comedy",
        Year: 2001,
        Month: 2,
        Day: 3,
        LanguageISO: "ja",
      });
    await makeCbz(join(world.root, "Tom", "Tom 001.cbz"), { pages: 3, seed: 1, comicInfo: info(1) });
    await makeCbz(join(world.root, "Tom", "Tom 002.cbz"), { pages: 2, seed: 2, comicInfo: info(2) });
    await webpCbz(join(world.root, "Webp", "Webp 001.cbz"));
    placeFixture("epub/idpf-built/wasteland.epub", join(world.root, "Novels", "wasteland.epub"));
    const library = await createLibrary(server(), bearer(adminToken), { name: "Comics", path: world.root });
    world.libraryId = library.id;
    await scanToCompletion(server(), adminToken, library.id);
    const list = await server().json("GET", `/api/v1/books?libraryId=${library.id}&pageSize=500`, undefined, bearer(adminToken));
    world.books = Object.fromEntries(list.body.data.map((book: World["books"][string]) => [book.filePath.split("/").pop(), book]));
    expect(Object.keys(world.books).sort()).toEqual(["Tom 001.cbz", "Tom 002.cbz", "Webp 001.cbz", "wasteland.epub"]);
  });

  const get = (path: string, headers: Record<string, string> = world.reader) => server().fetch(path, { headers });
  /** Fetches an absolute link from a feed (links point at the server the request went to: one elsewhere throws). */
  const follow = (href: string, headers: Record<string, string> = world.reader) => server().fetch(href, { headers });
  const atom = async (path: string) => {
    const response = await get(path);
    expect({ path, status: response.status }).toEqual({ path, status: 200 });
    expect(response.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    return response.text();
  };
  const json = async (path: string) => {
    const response = await get(path);
    expect({ path, status: response.status }).toEqual({ path, status: 200 });
    expect(response.headers.get("content-type")).toBe("application/opds+json; charset=utf-8");
    return (await response.json()) as Record<string, any>;
  };
  const tomSeries = () => world.books["Tom 001.cbz"]!.seriesId;
  const feedPaths = () => ({
    catalog: "catalog",
    library: `libraries/${world.libraryId}`,
    series: "series",
    acquisition: `series/${tomSeries()}`,
    recent: "recent",
    continueReading: "continue-reading",
    search: `search?q=${encodeURIComponent("jerry")}`,
  });

  describe("OPDS 1.2", () => {
    test("every feed kind, the PSE links and the OpenSearch description are valid against their grammars", async () => {
      const emptyContinueReading = await atom("/opds/v1.2/continue-reading");
      await server().json("PUT", `/api/v1/books/${world.books["Tom 002.cbz"]!.id}/progress`, { page: 1 }, world.reader);
      const documents: Record<string, string> = { emptyContinueReading };
      for (const [name, path] of Object.entries(feedPaths())) documents[name] = await atom(`/opds/v1.2/${path}`);
      expectValidWithJing(schemas.opds, documents, schemas.dir);

      const streams = pageStreamLinks(documents.acquisition!);
      expect(streams).toHaveLength(2);
      expectValidWithJing(schemas.pse, Object.fromEntries(streams.map((link, index) => [`pse${index}`, link])), schemas.dir);

      const description = await get("/opds/v1.2/search.xml");
      expect(description.headers.get("content-type")).toBe("application/opensearchdescription+xml; charset=utf-8");
      expectValidWithJing(schemas.openSearch, { openSearch: await description.text() }, schemas.dir);
      await server().json("DELETE", `/api/v1/books/${world.books["Tom 002.cbz"]!.id}/progress`, undefined, world.reader);
    });

    test("the root links to continue reading, recently added, the lists, all series and each library with the right feed kinds", async () => {
      const feed = parseFeed(await atom("/opds/v1.2/catalog"));
      const origin = server().url;
      expect(feed.entry!.map((entry) => [entry.title, linkOf(entry, entry.link[0]!.rel!)!.href, entry.link[0]!.type])).toEqual([
        ["Continue reading", `${origin}/opds/v1.2/continue-reading`, ACQUISITION_TYPE],
        ["Recently added", `${origin}/opds/v1.2/recent`, ACQUISITION_TYPE],
        ["Collections", `${origin}/opds/v1.2/collections`, NAVIGATION_TYPE],
        ["Read lists", `${origin}/opds/v1.2/readlists`, NAVIGATION_TYPE],
        ["Want to read", `${origin}/opds/v1.2/want-to-read`, NAVIGATION_TYPE],
        ["All series", `${origin}/opds/v1.2/series`, NAVIGATION_TYPE],
        ["Comics", `${origin}/opds/v1.2/libraries/${world.libraryId}`, NAVIGATION_TYPE],
      ]);
      expect(linkOf(feed, "self")).toEqual({ rel: "self", href: `${origin}/opds/v1.2/catalog`, type: NAVIGATION_TYPE });
      expect(linkOf(feed, "start")!.href).toBe(`${origin}/opds/v1.2/catalog`);
      expect(linkOf(feed, "search")).toEqual({ rel: "search", href: `${origin}/opds/v1.2/search.xml`, type: "application/opensearchdescription+xml" });
    });

    test("navigation feeds lead to series acquisition feeds; feed links carry self, start, up and paging", async () => {
      const library = parseFeed(await atom(`/opds/v1.2/libraries/${world.libraryId}`));
      const tom = library.entry!.find((entry) => entry.title === TRICKY)!;
      expect(linkOf(tom, "subsection")).toEqual({ rel: "subsection", href: `${server().url}/opds/v1.2/series/${tomSeries()}`, type: ACQUISITION_TYPE });
      expect(linkOf(tom, "http://opds-spec.org/image/thumbnail")!.href).toBe(`${server().url}/opds/series/${tomSeries()}/thumbnail`);
      expect(linkOf(library, "up")!.href).toBe(`${server().url}/opds/v1.2/catalog`);

      const series = parseFeed(await atom(`/opds/v1.2/series/${tomSeries()}`));
      expect(series.entry!.map((entry) => entry.title)).toEqual([TRICKY, `${TRICKY} (part 2)`]);
      expect(linkOf(series, "self")!.type).toBe(ACQUISITION_TYPE);
      expect(linkOf(series, "up")!.href).toBe(`${server().url}/opds/v1.2/libraries/${world.libraryId}`);
      expect(linkOf(series, "first")!.href).toBe(`${server().url}/opds/v1.2/series/${tomSeries()}?page=1`);
      expect(linkOf(series, "last")!.href).toBe(`${server().url}/opds/v1.2/series/${tomSeries()}?page=1`);
      expect(linkOf(series, "next")).toBeUndefined();
      expect(series["opensearch:totalResults"]).toBe("2");
    });

    test("titles with &, <, quotes and non-Latin scripts are escaped in the XML and read back exactly", async () => {
      const xml = await atom(`/opds/v1.2/series/${tomSeries()}`);
      expect(xml).toContain("<title>Tom &amp; Jerry &lt;&quot;Special&quot;&gt; 東京</title>");
      const feed = parseFeed(xml);
      expect(feed.title).toBe(TRICKY);
      const entry = feed.entry![0]!;
      expect(entry.title).toBe(TRICKY);
      expect(entry.summary).toEqual({ type: "text", text: 'A "quoted" summary & <b>markup</b>, part 1' });
      expect(entry["dcterms:publisher"]).toBe("Pub & Co");
    });

    test("an entry carries authors, dates, Dublin Core terms, a category, image links and the acquisition link with the real type and size", async () => {
      const book = world.books["Tom 001.cbz"]!;
      const entry = parseFeed(await atom(`/opds/v1.2/series/${tomSeries()}`)).entry![0]! as AtomEntry & Record<string, any>;
      expect(entry.id).toBe(`urn:uuid:${book.id}`);
      expect(entry.author).toEqual([{ name: "Jane Doe" }]);
      expect(entry.contributor).toEqual([{ name: "John Roe" }]);
      expect(entry.category).toEqual([{ term: "Comedy", label: "Comedy" }]);
      expect({ language: entry["dcterms:language"], issued: entry["dcterms:issued"] }).toEqual({ language: "ja", issued: "2001-02-03" });
      expect(Date.parse(entry.updated)).not.toBeNaN();
      expect(Date.parse(entry.published)).not.toBeNaN();
      const bytes = readFileSync(book.filePath);
      expect(linkOf(entry, "http://opds-spec.org/acquisition")).toEqual({
        rel: "http://opds-spec.org/acquisition",
        href: `${server().url}/opds/books/${book.id}/file`,
        type: "application/vnd.comicbook+zip",
        length: String(bytes.length),
      });
      for (const rel of ["http://opds-spec.org/image", "http://opds-spec.org/image/thumbnail"]) {
        const image = linkOf(entry, rel)!;
        const response = await follow(image.href);
        expect({ rel, status: response.status, type: response.headers.get("content-type") }).toEqual({ rel, status: 200, type: image.type! });
      }
    });

    test("thumbnails answer as the REST ones do: the same image and validators, and 304 when the reader has it", async () => {
      const book = world.books["Tom 001.cbz"]!.id;
      for (const owner of [`books/${book}`, `series/${tomSeries()}`]) {
        const answers = [];
        for (const path of [`/opds/${owner}/thumbnail`, `/api/v1/${owner}/thumbnail`]) {
          const response = await server().fetch(path, { headers: world.reader });
          const header = (name: string) => response.headers.get(name);
          answers.push({ status: response.status, type: header("content-type"), etag: header("etag"), caching: header("cache-control"), sha: sha256(await response.arrayBuffer()) });
        }
        const [opds, rest] = answers;
        expect(opds).toEqual(rest!);
        expect({ owner, status: opds!.status, tagged: opds!.etag?.startsWith('"') }).toEqual({ owner, status: 200, tagged: true });
        const again = await server().fetch(`/opds/${owner}/thumbnail`, { headers: { ...world.reader, "if-none-match": opds!.etag! } });
        expect({ owner, status: again.status, etag: again.headers.get("etag") }).toEqual({ owner, status: 304, etag: opds!.etag });
      }
    });

    test("acquisition links lead to the real bytes of every book (SHA-256 of the file), with Basic credentials", async () => {
      const feeds = [`series/${tomSeries()}`, "recent"];
      let followed = 0;
      for (const path of feeds) {
        for (const entry of parseFeed(await atom(`/opds/v1.2/${path}`)).entry ?? []) {
          const link = linkOf(entry, "http://opds-spec.org/acquisition")!;
          const book = Object.values(world.books).find((candidate) => entry.id === `urn:uuid:${candidate.id}`)!;
          const response = await follow(link.href);
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toBe(link.type!);
          expect(sha256(await response.arrayBuffer())).toBe(sha256(readFileSync(book.filePath)));
          followed++;
        }
      }
      expect(followed).toBe(2 + Object.keys(world.books).length);
    });

    test("recently added lists present books newest first; search finds books by title, series and author", async () => {
      const recent = parseFeed(await atom("/opds/v1.2/recent"));
      expect(recent.entry).toHaveLength(4);
      const search = parseFeed(await atom(`/opds/v1.2/search?q=${encodeURIComponent("jane doe")}`));
      expect(search.entry!.map((entry) => entry.title)).toEqual([TRICKY, `${TRICKY} (part 2)`]);
      expect(linkOf(search, "self")!.href).toBe(`${server().url}/opds/v1.2/search?q=jane+doe&page=1`);
      expect((await get("/opds/v1.2/search")).status).toBe(400);
    });
  });

  describe("OPDS-PSE page streaming", () => {
    const streamOf = async (file: string) => {
      const entries = parseFeed(await atom("/opds/v1.2/recent")).entry!;
      const entry = entries.find((candidate) => candidate.id === `urn:uuid:${world.books[file]!.id}`)!;
      return linkOf(entry, "http://vaemendis.net/opds-pse/stream");
    };
    const expand = (template: string, pageNumber: number, maxWidth?: number) =>
      template.replace("{pageNumber}", String(pageNumber)).replace("{maxWidth}", maxWidth === undefined ? "{maxWidth}" : String(maxWidth));

    test("books made of images have a stream link with the page count; a reflowable EPUB has none", async () => {
      const tom = (await streamOf("Tom 001.cbz"))!;
      expect(tom).toEqual({
        rel: "http://vaemendis.net/opds-pse/stream",
        href: `${server().url}/opds/v1.2/books/${world.books["Tom 001.cbz"]!.id}/pages/{pageNumber}?maxWidth={maxWidth}`,
        type: "image/jpeg",
        "pse:count": "3",
      });
      expect(await streamOf("wasteland.epub")).toBeUndefined();
    });

    test("the template, filled in, gives real images from page 0 to count-1; maxWidth is honoured; others are 404", async () => {
      const link = (await streamOf("Tom 002.cbz"))!;
      for (let pageNumber = 0; pageNumber < Number(link["pse:count"]); pageNumber++) {
        const response = await follow(expand(link.href, pageNumber));
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("image/jpeg");
        expect((await sharp(new Uint8Array(await response.arrayBuffer())).metadata()).width).toBe(64);
      }
      const narrow = await follow(expand(link.href, 0, 32));
      expect((await sharp(new Uint8Array(await narrow.arrayBuffer())).metadata()).width).toBe(32);
      expect((await follow(expand(link.href, 2))).status).toBe(404);
      await server().json("DELETE", `/api/v1/books/${world.books["Tom 002.cbz"]!.id}/progress`, undefined, world.reader);
    });

    test("pages that are not JPEG, PNG or GIF are streamed as JPEG", async () => {
      const link = (await streamOf("Webp 001.cbz"))!;
      const response = await follow(expand(link.href, 1));
      expect(response.headers.get("content-type")).toBe("image/jpeg");
      expect((await sharp(new Uint8Array(await response.arrayBuffer())).metadata()).format).toBe("jpeg");
      await server().json("DELETE", `/api/v1/books/${world.books["Webp 001.cbz"]!.id}/progress`, undefined, world.reader);
    });

    test("pse:lastRead shows the caller's progress, and reading through PSE records progress as Komga does", async () => {
      const book = world.books["Tom 001.cbz"]!;
      const progress = () => server().json("GET", `/api/v1/books/${book.id}/progress`, undefined, world.reader);
      expect((await streamOf("Tom 001.cbz"))!["pse:lastRead"]).toBeUndefined();

      const link = (await streamOf("Tom 001.cbz"))!;
      expect((await follow(expand(link.href, 1))).status).toBe(200);
      expect((await progress()).body).toMatchObject({ page: 2, completed: false });
      const reading = (await streamOf("Tom 001.cbz"))!;
      expect(reading["pse:lastRead"]).toBe("2");
      expect(Date.parse(reading["pse:lastReadDate"]!)).not.toBeNaN();
      const continuing = parseFeed(await atom("/opds/v1.2/continue-reading"));
      expect(continuing.entry!.map((entry) => entry.id)).toEqual([`urn:uuid:${book.id}`]);

      // A revalidation (304) still reaches the server, so re-reading a page records it too.
      const first = await follow(expand(link.href, 0));
      const revalidated = await follow(expand(link.href, 0), { ...world.reader, "if-none-match": first.headers.get("etag")! });
      expect(revalidated.status).toBe(304);
      expect((await progress()).body).toMatchObject({ page: 1, completed: false });

      expect((await follow(expand(link.href, 2))).status).toBe(200);
      expect((await progress()).body).toMatchObject({ page: 3, completed: true });
      expect(parseFeed(await atom("/opds/v1.2/continue-reading")).entry).toBeUndefined();
      await server().json("DELETE", `/api/v1/books/${book.id}/progress`, undefined, world.reader);
    });
  });

  describe("OPDS 2", () => {
    test("every feed kind (and an empty one) is valid against the OPDS 2 JSON schemas", async () => {
      validator.validate(await json("/opds/v2/continue-reading"));
      for (const path of Object.values(feedPaths())) validator.validate(await json(`/opds/v2/${path}`));
    });

    test("the same navigation as OPDS 1.2, with paging and a templated search link", async () => {
      const root = await json("/opds/v2/catalog");
      expect(root.navigation.map((link: { title: string; href: string }) => [link.title, link.href])).toEqual([
        ["Continue reading", `${server().url}/opds/v2/continue-reading`],
        ["Recently added", `${server().url}/opds/v2/recent`],
        ["Collections", `${server().url}/opds/v2/collections`],
        ["Read lists", `${server().url}/opds/v2/readlists`],
        ["Want to read", `${server().url}/opds/v2/want-to-read`],
        ["All series", `${server().url}/opds/v2/series`],
        ["Comics", `${server().url}/opds/v2/libraries/${world.libraryId}`],
      ]);
      expect(root.links).toContainEqual({ rel: "search", href: `${server().url}/opds/v2/search{?q}`, type: "application/opds+json", templated: true });
      const series = await json(`/opds/v2/series/${tomSeries()}`);
      expect(series.metadata).toMatchObject({ title: TRICKY, numberOfItems: 2, itemsPerPage: 50, currentPage: 1 });
      expect(series.links).toContainEqual({ rel: "first", href: `${server().url}/opds/v2/series/${tomSeries()}?page=1`, type: "application/opds+json" });
      expect(series.publications.map((publication: { metadata: { title: string } }) => publication.metadata.title)).toEqual([TRICKY, `${TRICKY} (part 2)`]);
    });

    test("publications carry metadata, an image and an acquisition link to the real bytes", async () => {
      const book = world.books["Tom 001.cbz"]!;
      const [publication] = (await json(`/opds/v2/series/${tomSeries()}`)).publications;
      expect(publication.metadata).toMatchObject({
        title: TRICKY,
        identifier: `urn:uuid:${book.id}`,
        author: ["Jane Doe"],
        language: "ja",
        published: "2001-02-03",
        publisher: "Pub & Co",
        numberOfPages: 3,
        belongsTo: { series: { name: TRICKY, position: 1 } },
      });
      const acquisition = publication.links[0];
      expect(acquisition).toMatchObject({ rel: "http://opds-spec.org/acquisition", type: "application/vnd.comicbook+zip" });
      const file = await follow(acquisition.href);
      expect(sha256(await file.arrayBuffer())).toBe(sha256(readFileSync(book.filePath)));
      expect((await follow(publication.images[0].href)).status).toBe(200);
    });
  });

  describe("credentials", () => {
    const PATHS = ["/opds/v1.2/catalog", "/opds/v2/catalog", "/opds/v1.2/search.xml"];

    test("without credentials, or with a wrong password, every OPDS route answers 401 with the Basic challenge", async () => {
      const book = world.books["Tom 001.cbz"]!.id;
      // Feeds link files and thumbnails here: a reader that waits for the challenge must get it there too.
      const paths = [...PATHS, `/opds/v1.2/books/${book}/pages/0`, `/opds/books/${book}/file`, `/opds/books/${book}/thumbnail`, `/opds/series/${tomSeries()}/thumbnail`];
      for (const path of paths) {
        for (const headers of [{}, basic("reader", "wrong password")]) {
          const response = await server().fetch(path, { headers });
          expect({ path, status: response.status, challenge: response.headers.get("www-authenticate") }).toEqual({
            path,
            status: 401,
            challenge: 'Basic realm="Longbox"',
          });
        }
      }
    });

    test("Basic with the password, Basic with an API key and Bearer with an API key are accepted", async () => {
      for (const headers of [world.reader, basic("reader", world.readerApiKey), bearer(world.readerApiKey)]) {
        for (const path of PATHS) expect({ path, status: (await server().fetch(path, { headers })).status }).toEqual({ path, status: 200 });
      }
    });

    test("a series that does not exist is 404", async () => {
      expect((await get(`/opds/v1.2/series/${crypto.randomUUID()}`)).status).toBe(404);
      expect((await get(`/opds/v2/series/${crypto.randomUUID()}`)).status).toBe(404);
    });
  });
});
