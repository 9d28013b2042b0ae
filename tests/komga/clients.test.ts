/**
 * The Komga-compatible API replayed request by request as its clients send them
 * (/work/shared/notes/komga-koreader-protocols.md part A): Mihon's Komga extension (bare first
 * request, Basic retry, cookie jar; browse, search with filters, details, chapters, pages,
 * convert; API key), the Mihon tracker (cookies only), and Komelia (users/me?remember-me=true,
 * then cookies only; POST .../list with conditions; page reads; progress PATCH). Answers are
 * decoded with the clients' required fields (./schemas.ts).
 */
import { Type as T } from "@sinclair/typebox";
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, login, PASSWORD } from "../helpers/auth";
import { sha256 } from "../helpers/digests";
import { comicInfo, createLibrary, makeCbz, placeFixture, scan, tempFolder } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import {
  CollectionPage,
  decode,
  KomgaBook,
  KomgaBookPage,
  KomgaLibrary,
  KomgaSeries,
  KomgaUser,
  SpringPage,
  TachiyomiProgressV2,
} from "./schemas";

const MIHON = { "user-agent": "TachiyomiKomga/1.4.50" };
const TRACKER = { "user-agent": "Mihon v0.19.0 (app.mihon)" };
const KOMELIA_LOGIN = { "cache-control": "no-cache, no-store, max-age=0" };

/** A client's cookie jar: keeps cookies by name, honours deletion (Max-Age=0). */
class CookieJar {
  readonly cookies = new Map<string, { value: string; attributes: string }>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (/max-age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, { value: pair.slice(eq + 1), attributes: attributes.join("; ") });
    }
  }

  header(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, cookie]) => `${name}=${cookie.value}`).join("; ") };
  }

  only(...names: string[]): CookieJar {
    const copy = new CookieJar();
    for (const name of names) {
      const cookie = this.cookies.get(name);
      if (cookie) copy.cookies.set(name, cookie);
    }
    return copy;
  }
}

interface World {
  libraryId: string;
  alpha: string;
  beta: string;
  novel: string;
  broken: string;
  pdf: string;
  readerId: string;
  adminToken: string;
}

const BASE = "/komga";

forEachDatabase(
  "Komga API clients",
  (server) => {
    const world = {} as World;
    const reader = basic("reader", PASSWORD);

    /** One request as a client sends it; the jar (if any) gives and takes cookies. */
    async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; jar?: CookieJar } = {}) {
      const response = await server().fetch(`${BASE}${path}`, {
        method: init.method ?? "GET",
        headers: {
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
          ...init.jar?.header(),
          ...init.headers,
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      init.jar?.take(response);
      return response;
    }

    async function json(path: string, init: Parameters<typeof call>[1] = {}) {
      const response = await call(path, init);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      return response.json();
    }

    /** Mihon's authenticator: the request goes out bare; on 401 it is retried once with Basic. */
    async function mihon(path: string, jar: CookieJar, extra: Record<string, string> = {}) {
      const first = await call(path, { jar, headers: { ...MIHON, ...extra } });
      if (first.status !== 401) return first;
      return call(path, { jar, headers: { ...MIHON, ...extra, ...reader } });
    }

    beforeAll(async () => {
      const session = await adminSession(server());
      world.adminToken = session.token;
      const admin = bearer(session.token);
      world.readerId = await createUser(server(), session.token, "reader");
      const root = tempFolder();
      const info = (fields: Record<string, string | number>) => comicInfo({ Publisher: "Acme", LanguageISO: "en", ...fields });
      await makeCbz(join(root, "Alpha", "Alpha 01.cbz"), {
        pages: 3,
        seed: 1,
        comicInfo: info({ Series: "Alpha", Number: 1, Title: "Arrival", Writer: "Ann Writer", Penciller: "Pete Pencil", Genre: "Action", Tags: "Space", Year: 2001, Month: 3, Summary: "Alpha one" }),
      });
      await makeCbz(join(root, "Alpha", "Alpha 02.cbz"), {
        pages: 4,
        seed: 2,
        comicInfo: info({ Series: "Alpha", Number: 2, Title: "Departure", Writer: "Ann Writer", Genre: "Drama", Year: 2002 }),
      });
      await makeCbz(join(root, "Beta", "Beta 01.cbz"), { pages: 2, seed: 3, comicInfo: info({ Series: "Beta", Number: 1, Writer: "Bob Other", Genre: "Drama" }) });
      placeFixture("epub/idpf-built/wasteland.epub", join(root, "Novel", "wasteland.epub"));
      placeFixture("pdf/komga/komga.pdf", join(root, "Documents", "komga.pdf"));
      placeFixture("epub/idpf-built/haruko-jpeg.epub", join(root, "Novel", "haruko-jpeg.epub"));
      await makeCbz(join(root, "Broken", "Broken 01.cbz"), { pages: 0, seed: 4 });
      world.libraryId = (await createLibrary(server(), admin, { path: root, name: "Comics" })).id;
      const finished = await scan(server(), admin, world.libraryId);
      expect(finished.status).toBe("completed");
      const series = (await server().json("GET", `/api/v1/series?pageSize=50`, undefined, admin)).body.data as { id: string; name: string }[];
      const idOf = (name: string) => series.find((candidate) => candidate.name === name)!.id;
      world.alpha = idOf("Alpha");
      world.beta = idOf("Beta");
      world.broken = idOf("Broken");
      world.pdf = idOf("Documents");
      world.novel = series.find((candidate) => !["Alpha", "Beta", "Broken", "Documents"].includes(candidate.name))!.id;
    });

    describe("Mihon's Komga extension", () => {
      const jar = new CookieJar();
      let chapters: any[];

      test("the first request goes out bare: 401 with a Basic challenge; the Basic retry gets the list and a session cookie", async () => {
        const bare = await call("/api/v1/series?search=&page=0&deleted=false", { headers: MIHON });
        expect(bare.status).toBe(401);
        expect(bare.headers.get("www-authenticate")).toStartWith("Basic");
        await bare.body?.cancel();

        const answer = await mihon(`/api/v1/series?search=&page=0&deleted=false&library_id=${world.libraryId}&sort=metadata.titleSort,asc`, jar);
        expect(answer.status).toBe(200);
        const session = jar.cookies.get("KOMGA-SESSION");
        expect(session).toBeDefined();
        expect(session!.attributes).toContain("Path=/komga");
        expect(session!.attributes).toContain("HttpOnly");
        expect(session!.attributes).toContain("SameSite=Lax");
        expect(session!.attributes).not.toContain("Secure");
        const page = decode(SpringPage(KomgaSeries), await answer.json());
        expect(page.content.map((series: { name: string }) => series.name).slice(0, 2)).toEqual(["Alpha", "Beta"]);
        expect(page.totalElements).toBe(5);
        expect(page.size).toBe(20);
        expect(page.last).toBe(true);
      });

      test("popular and latest pages ride on the session cookie alone", async () => {
        const popular = decode(SpringPage(KomgaSeries), await (await mihon("/api/v1/series?search=&page=0&deleted=false&sort=metadata.titleSort,asc", jar)).json());
        expect(popular.content[0].name).toBe("Alpha");
        const sessionOnly = await call("/api/v1/series?search=&page=0&deleted=false&sort=lastModifiedDate,desc", { jar, headers: MIHON });
        expect(sessionOnly.status).toBe(200);
        const latest = decode(SpringPage(KomgaSeries), await sessionOnly.json());
        expect(latest.content).toHaveLength(5);
        // Spring's leniency: nonsense paging falls back to the defaults.
        const lenient = decode(SpringPage(KomgaSeries), await (await mihon("/api/v1/series?page=-1&size=abc", jar)).json());
        expect({ number: lenient.number, size: lenient.size }).toEqual({ number: 0, size: 20 });
        const second = decode(SpringPage(KomgaSeries), await (await mihon("/api/v1/series?search=&page=1&size=3&deleted=false&sort=metadata.titleSort,asc", jar)).json());
        expect({ number: second.number, first: second.first, last: second.last, numberOfElements: second.numberOfElements, totalPages: second.totalPages }).toEqual({
          number: 1,
          first: false,
          last: true,
          numberOfElements: 2,
          totalPages: 2,
        });
      });

      test("search with filters: text, repeated read_status, comma-joined genre, author with role, status, publisher", async () => {
        const names = async (query: string) =>
          decode(SpringPage(KomgaSeries), await (await mihon(`/api/v1/series?search=${query}`, jar)).json()).content.map((series: { name: string }) => series.name).sort();
        expect(await names("alp&page=0&deleted=false")).toEqual(["Alpha"]);
        expect(await names("&page=0&deleted=false&read_status=UNREAD&read_status=IN_PROGRESS&genre=Action,Drama")).toEqual(["Alpha", "Beta"]);
        expect(await names("&page=0&deleted=false&genre=action")).toEqual(["Alpha"]);
        expect(await names("&page=0&deleted=false&author=Ann%20Writer,writer")).toEqual(["Alpha"]);
        expect(await names("&page=0&deleted=false&author=Ann%20Writer,penciller")).toEqual([]);
        expect(await names("&page=0&deleted=false&tag=Space")).toEqual(["Alpha"]);
        expect(await names("&page=0&deleted=false&status=ONGOING&genre=Drama")).toEqual(["Alpha", "Beta"]);
        expect(await names("&page=0&deleted=false&status=ENDED")).toEqual([]);
        expect(await names("&page=0&deleted=false&read_status=READ")).toEqual([]);
      });

      test("filter options: libraries, collections (unpaged), genres, tags, publishers, authors", async () => {
        const libraries = await (await mihon("/api/v1/libraries", jar)).json();
        expect(libraries.map((library: { id: string; name: string }) => ({ id: library.id, name: library.name }))).toEqual([{ id: world.libraryId, name: "Comics" }]);
        decode(CollectionPage, await (await mihon("/api/v1/collections?unpaged=true", jar)).json());
        expect((await mihon("/api/v1/collections/01900000-0000-7000-8000-000000000000/series?search=&page=0", jar)).status).toBe(404);
        expect((await mihon("/api/v1/readlists/01900000-0000-7000-8000-000000000000/read-progress/tachiyomi", jar)).status).toBe(404);
        expect(await (await mihon("/api/v1/genres", jar)).json()).toEqual(["Action", "Drama"]);
        expect(await (await mihon("/api/v1/tags", jar)).json()).toEqual(["Space"]);
        expect(await (await mihon("/api/v1/publishers", jar)).json()).toEqual(["Acme"]);
        // The series' languages, as the EPUBs say them, which the series' language filter matches: not
        // ja-jp, the language of the Novel series' second book only (the series' is its first book's).
        expect(await (await mihon("/api/v1/languages", jar)).json()).toEqual(["en", "en-US"]);
        // The series' years (2022: the PDF, 2011: the EPUB); 2002 is a second book's only.
        expect(await (await mihon("/api/v1/release-dates", jar)).json()).toEqual(["2022", "2011", "2001"]);
        expect(await (await mihon(`/api/v1/release-dates?series_id=${world.alpha}`, jar)).json()).toEqual(["2001"]);
        expect(await (await mihon("/api/v1/genres?library_id=not-an-id", jar)).json()).toEqual([]);
        const writers = decode(SpringPage(T.Object({ name: T.String(), role: T.String() })), await (await mihon("/api/v2/authors?search=ann&role=writer", jar)).json());
        expect(writers.content).toEqual([{ name: "Ann Writer", role: "writer" }]);
        const authors = await (await mihon("/api/v1/authors", jar)).json();
        expect(authors).toContainEqual({ name: "Ann Writer", role: "writer" });
        expect(authors).toContainEqual({ name: "Pete Pencil", role: "penciller" });
      });

      test("series details carry what Mihon maps: title, summary from the books, authors by role, genres, status", async () => {
        const series = decode(KomgaSeries, await (await mihon(`/api/v1/series/${world.alpha}`, jar)).json());
        expect(series.metadata.title).toBe("Alpha");
        expect(series.metadata.status).toBe("ONGOING");
        expect(series.booksCount).toBe(2);
        expect(series.booksMetadata.summary).toBe("Alpha one");
        expect(series.booksMetadata.releaseDate).toBe("2001-03-01");
        expect(series.booksMetadata.authors).toContainEqual({ name: "Ann Writer", role: "writer" });
        expect(series.metadata.genres).toEqual(["Action", "Drama"]);
        expect(series.booksMetadata.tags).toEqual(["Space"]);
        const thumbnail = await mihon(`/api/v1/series/${world.alpha}/thumbnail`, jar);
        expect(thumbnail.status).toBe(200);
        expect(thumbnail.headers.get("content-type")).toStartWith("image/");
        await thumbnail.body?.cancel();
      });

      test("thumbnails answer as the REST ones (image, validators, bytes); 304 to If-None-Match; a drawn image without one; 401 with the Komga challenge", async () => {
        const first = decode(SpringPage(KomgaBook), await (await mihon(`/api/v1/series/${world.alpha}/books?unpaged=true`, jar)).json()).content[0];
        for (const owner of [`books/${first.id}`, `series/${world.alpha}`]) {
          const answers = [];
          for (const response of [await mihon(`/api/v1/${owner}/thumbnail`, jar, { accept: "*/*" }), await server().fetch(`/api/v1/${owner}/thumbnail`, { headers: reader })]) {
            const header = (name: string) => response.headers.get(name);
            const bytes = sha256(await response.arrayBuffer());
            answers.push({ status: response.status, type: header("content-type"), etag: header("etag"), caching: header("cache-control"), bytes });
          }
          const [komga, rest] = answers;
          expect(komga).toEqual(rest!);
          expect({ owner, status: komga!.status, image: komga!.type?.startsWith("image/"), tagged: komga!.etag?.startsWith('"') }).toEqual({ owner, status: 200, image: true, tagged: true });
          const again = await mihon(`/api/v1/${owner}/thumbnail`, jar, { "if-none-match": komga!.etag! });
          expect({ owner, status: again.status, etag: again.headers.get("etag") }).toEqual({ owner, status: 304, etag: komga!.etag });
        }
        // The empty book has nothing to show: an image of its series' name, never a 404 (issue 30, M1).
        const drawn = await mihon(`/api/v1/series/${world.broken}/thumbnail`, jar);
        expect({ status: drawn.status, image: drawn.headers.get("content-type")?.startsWith("image/") }).toEqual({ status: 200, image: true });
        await drawn.body?.cancel();
        const bare = await call(`/api/v1/series/${world.alpha}/thumbnail`, { headers: MIHON });
        expect({ status: bare.status, challenge: bare.headers.get("www-authenticate") }).toEqual({ status: 401, challenge: 'Basic realm="Realm"' });
        await bare.body?.cancel();
      });

      test("the chapter list: READY books in numberSort order with Komga's number, release date and media profile", async () => {
        const page = decode(SpringPage(KomgaBook), await (await mihon(`/api/v1/series/${world.alpha}/books?unpaged=true&media_status=READY&deleted=false`, jar)).json());
        chapters = page.content;
        expect(chapters.map((book) => [book.metadata.number, book.metadata.numberSort, book.metadata.title])).toEqual([
          ["1", 1, "Arrival"],
          ["2", 2, "Departure"],
        ]);
        expect(page.size).toBe(20);
        expect(page.number).toBe(0);
        expect(chapters[0].metadata.releaseDate).toBe("2001-03-01");
        expect(chapters[0].media).toMatchObject({ status: "READY", mediaProfile: "DIVINA", pagesCount: 3 });
        expect(chapters[0].metadata.authors).toContainEqual({ name: "Pete Pencil", role: "penciller" });
        // The reader is no admin: no server path in the book's url.
        expect(chapters.map((book: { url: string }) => book.url)).toEqual(["", ""]);

        const novel = decode(SpringPage(KomgaBook), await (await mihon(`/api/v1/series/${world.novel}/books?unpaged=true&media_status=READY&deleted=false`, jar)).json());
        // Mihon keeps EPUBs whose pages are all images (a fixed-layout manga) and drops reflowable ones.
        const epub = (title: string) => novel.content.find((book: { name: string }) => book.name === title).media;
        expect(epub("The Waste Land")).toMatchObject({ mediaProfile: "EPUB", epubDivinaCompatible: false });
        expect(epub("ハルコさんの彼氏")).toMatchObject({ mediaProfile: "EPUB", epubDivinaCompatible: true, pagesCount: 13 });
        const progressOf = (title: string, method: "PATCH" | "DELETE") =>
          call(`/api/v1/books/${novel.content.find((book: { name: string }) => book.name === title).id}/read-progress`, {
            method,
            jar,
            headers: MIHON,
            body: method === "PATCH" ? { page: 1 } : undefined,
          });
        expect((await progressOf("The Waste Land", "PATCH")).status).toBe(400);
        expect((await progressOf("ハルコさんの彼氏", "PATCH")).status).toBe(204);
        expect((await progressOf("ハルコさんの彼氏", "DELETE")).status).toBe(204);
        // A book without pages is an ERROR and left out of Mihon's READY chapter list.
        const broken = world.broken;
        expect(decode(SpringPage(KomgaBook), await (await mihon(`/api/v1/series/${broken}/books?unpaged=true&media_status=READY&deleted=false`, jar)).json()).totalElements).toBe(0);
        const errored = decode(SpringPage(KomgaBook), await (await mihon(`/api/v1/series/${broken}/books?unpaged=true&media_status=ERROR`, jar)).json());
        expect(errored.content.map((book: { media: { status: string } }) => book.media.status)).toEqual(["ERROR"]);
        const book = decode(KomgaBook, await (await mihon(`/api/v1/books/${chapters[0].id}?unpaged=true`, jar)).json());
        expect(book.id).toBe(chapters[0].id);
      });

      test("page list and page fetch, 1-based, with Mihon's Accept header; convert=png re-encodes", async () => {
        const pages = (await (await mihon(`/api/v1/books/${chapters[1].id}/pages`, jar)).json()) as unknown[];
        expect(pages).toHaveLength(4);
        const decoded = pages.map((page) => decode(KomgaBookPage, page));
        expect(decoded.map((page) => page.number)).toEqual([1, 2, 3, 4]);
        expect(decoded[0].mediaType).toBe("image/jpeg");
        const accept = { accept: "image/*,*/*;q=0.8" };
        const image = await mihon(`/api/v1/books/${chapters[1].id}/pages/1`, jar, accept);
        expect(image.status).toBe(200);
        expect(image.headers.get("content-type")).toBe("image/jpeg");
        const jpeg = new Uint8Array(await image.arrayBuffer());
        expect([jpeg[0], jpeg[1]]).toEqual([0xff, 0xd8]);
        const png = await mihon(`/api/v1/books/${chapters[1].id}/pages/4?convert=png`, jar, accept);
        expect(png.headers.get("content-type")).toBe("image/png");
        const bytes = new Uint8Array(await png.arrayBuffer());
        expect([...bytes.slice(1, 4)].map((byte) => String.fromCharCode(byte)).join("")).toBe("PNG");
        expect((await mihon(`/api/v1/books/${chapters[1].id}/pages/5`, jar)).status).toBe(400);
        expect((await mihon(`/api/v1/books/${chapters[1].id}/pages/1?convert=gif`, jar)).status).toBe(400);
        const zeroBased = await mihon(`/api/v1/books/${chapters[1].id}/pages/0?zero_based=true`, jar);
        expect(new Uint8Array(await zeroBased.arrayBuffer())).toEqual(jpeg);
      });

      test("a PDF is a chapter whose pages come as images; Mihon's convert=png for non-image page types works", async () => {
        const [pdf] = decode(SpringPage(KomgaBook), await (await mihon(`/api/v1/series/${world.pdf}/books?unpaged=true&media_status=READY&deleted=false`, jar)).json()).content;
        expect(pdf.media).toMatchObject({ status: "READY", mediaProfile: "PDF", mediaType: "application/pdf" });
        const [first] = ((await (await mihon(`/api/v1/books/${pdf.id}/pages`, jar)).json()) as unknown[]).map((page) => decode(KomgaBookPage, page));
        const accept = { accept: "image/*,*/*;q=0.8" };
        // Mihon asks for PNG when the listed type is not an image type it knows.
        const imageTypes = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/jxl", "image/heif", "image/avif"];
        const path = `/api/v1/books/${pdf.id}/pages/1${imageTypes.includes(first!.mediaType) ? "" : "?convert=png"}`;
        const image = await mihon(path, jar, accept);
        expect(image.status).toBe(200);
        expect(image.headers.get("content-type")).toStartWith("image/");
        const png = await mihon(`/api/v1/books/${pdf.id}/pages/1?convert=PNG`, jar, accept);
        expect(png.headers.get("content-type")).toBe("image/png");
        expect(new Uint8Array(await png.arrayBuffer()).slice(1, 4)).toEqual(new TextEncoder().encode("PNG"));
      });

      test("with an API key every request carries X-API-Key: accepted, and a session starts for the tracker; a bad key is a plain 401", async () => {
        const key = (await server().json("POST", "/api/v1/api-keys", { name: "mihon" }, bearer((await login(server(), "reader")).token))).body.key as string;
        const keyJar = new CookieJar();
        const withKey = { ...MIHON, "x-api-key": key };
        const answer = await call("/api/v1/series?search=&page=0&deleted=false&sort=metadata.titleSort,asc", { jar: keyJar, headers: withKey });
        expect(answer.status).toBe(200);
        decode(SpringPage(KomgaSeries), await answer.json());
        const session = keyJar.cookies.get("KOMGA-SESSION")?.value;
        expect(session).toBeDefined();
        // The next request keeps the session it has: no new one per request.
        await (await call(`/api/v1/series/${world.alpha}`, { jar: keyJar, headers: withKey })).arrayBuffer();
        expect(keyJar.cookies.get("KOMGA-SESSION")?.value).toBe(session!);
        // The tracker sends no credentials, only the jar's cookies.
        const tracked = decode(TachiyomiProgressV2, await json(`/api/v2/series/${world.alpha}/read-progress/tachiyomi`, { jar: keyJar, headers: TRACKER }));
        expect(tracked.booksCount).toBe(2);
        const bad = await call("/api/v1/series", { headers: { ...MIHON, "x-api-key": "lbx_not-a-real-key" } });
        expect(bad.status).toBe(401);
        expect(bad.headers.getSetCookie()).toEqual([]);
        await bad.body?.cancel();
        const basicWithKey = await call(`/api/v1/series/${world.alpha}`, { headers: basic("reader", key) });
        expect(basicWithKey.status).toBe(200);
        await basicWithKey.body?.cancel();
      });

      test("the tracker: GET the manga URL and its v2 tachiyomi progress with cookies only, PUT marks books read", async () => {
        const trackerJar = jar.only("KOMGA-SESSION");
        const series = decode(KomgaSeries, await json(`/api/v1/series/${world.alpha}`, { jar: trackerJar, headers: TRACKER }));
        expect(series.metadata.title).toBe("Alpha");
        const progressUrl = `/api/v2/series/${world.alpha}/read-progress/tachiyomi`;
        const before = decode(TachiyomiProgressV2, await json(progressUrl, { jar: trackerJar, headers: TRACKER }));
        expect(before).toEqual({ booksCount: 2, booksReadCount: 0, booksUnreadCount: 2, booksInProgressCount: 0, lastReadContinuousNumberSort: 0, maxNumberSort: 2 });
        const put = await call(progressUrl, { method: "PUT", jar: trackerJar, headers: TRACKER, body: { lastBookNumberSortRead: 1 } });
        expect(put.status).toBe(204);
        const after = decode(TachiyomiProgressV2, await json(progressUrl, { jar: trackerJar, headers: TRACKER }));
        expect(after).toEqual({ booksCount: 2, booksReadCount: 1, booksUnreadCount: 1, booksInProgressCount: 0, lastReadContinuousNumberSort: 1, maxNumberSort: 2 });
        const reading = decode(KomgaSeries, await json(`/api/v1/series/${world.alpha}`, { jar: trackerJar, headers: TRACKER }));
        expect({ read: reading.booksReadCount, unread: reading.booksUnreadCount }).toEqual({ read: 1, unread: 1 });
        // The read status filter now sees Alpha as in progress (one of two read).
        const inProgress = decode(SpringPage(KomgaSeries), await json("/api/v1/series?search=&page=0&read_status=IN_PROGRESS", { jar: trackerJar }));
        expect(inProgress.content.map((entry: { name: string }) => entry.name)).toEqual(["Alpha"]);
        // Reset for the Komelia replay.
        for (const book of chapters) expect((await call(`/api/v1/books/${book.id}/read-progress`, { method: "DELETE", jar: trackerJar })).status).toBe(204);
      });
    });

    describe("Komelia", () => {
      const jar = new CookieJar();

      test("login: users/me?remember-me=true with Basic sets KOMGA-SESSION and komga-remember-me on the prefix path", async () => {
        const response = await call("/api/v2/users/me?remember-me=true", { jar, headers: { ...KOMELIA_LOGIN, ...reader } });
        expect(response.status).toBe(200);
        const user = decode(KomgaUser, await response.json());
        expect({ id: user.id, email: user.email, roles: user.roles }).toEqual({ id: world.readerId, email: "reader", roles: ["FILE_DOWNLOAD", "PAGE_STREAMING"] });
        expect(jar.cookies.get("KOMGA-SESSION")!.attributes).toContain("Path=/komga");
        const remember = jar.cookies.get("komga-remember-me")!;
        expect(remember.attributes).toContain("Path=/komga");
        expect(remember.attributes).toMatch(/Max-Age=\d{6,}/);
        const libraries = (await json("/api/v1/libraries", { jar })) as unknown[];
        expect(libraries).toHaveLength(1);
        decode(KomgaLibrary, libraries[0]);
      });

      test("wrong credentials are a 401 (shown as invalid credentials)", async () => {
        const response = await call("/api/v2/users/me?remember-me=true", { headers: { ...KOMELIA_LOGIN, ...basic("reader", "wrong password") } });
        expect(response.status).toBe(401);
        await response.body?.cancel();
      });

      test("series and books through POST .../list with condition trees, cookies only", async () => {
        const series = decode(
          SpringPage(KomgaSeries),
          await json("/api/v1/series/list?page=0&size=50&unpaged=false&sort=metadata.titleSort,asc", {
            method: "POST",
            jar,
            body: { condition: { type: "AllOfSeries", allOf: [{ type: "LibraryIdSeries", libraryId: { operator: "is", value: world.libraryId } }] } },
          }),
        );
        expect(series.content.map((entry: { name: string }) => entry.name).slice(0, 2)).toEqual(["Alpha", "Beta"]);
        const searched = decode(
          SpringPage(KomgaSeries),
          await json("/api/v1/series/list?page=0&size=20", {
            method: "POST",
            jar,
            body: {
              condition: { allOf: [{ anyOf: [{ readStatus: { operator: "is", value: "UNREAD" } }, { readStatus: { operator: "is", value: "IN_PROGRESS" } }] }, { genre: { operator: "is", value: "Drama" } }] },
              fullTextSearch: "bet",
            },
          }),
        );
        expect(searched.content.map((entry: { name: string }) => entry.name)).toEqual(["Beta"]);
        const listed = async (condition: unknown) =>
          decode(SpringPage(KomgaSeries), await json("/api/v1/series/list?unpaged=true", { method: "POST", jar, body: { condition } })).content.map((entry: { name: string }) => entry.name).sort();
        expect(await listed({ allOf: [{ readStatus: { operator: "isNot", value: "READ" } }, { language: { operator: "is", value: "EN" } }, { oneShot: { operator: "isFalse" } }] })).toEqual(["Alpha", "Beta"]);
        expect(await listed({ allOf: [{ libraryId: { operator: "is", value: world.libraryId } }, { collectionId: { operator: "is", value: "anything" } }] })).toEqual([]);
        expect(await listed({ anyOf: [{ seriesStatus: { operator: "is", value: "ENDED" } }, { seriesStatus: { operator: "is", value: "HIATUS" } }] })).toEqual([]);
        expect(await listed({ author: { operator: "is", value: { name: "bob other", role: "writer" } } })).toEqual(["Beta"]);
        // Conditions Longbox used to refuse with a 400 (tests/komga/search-conditions.test.ts covers every type).
        expect(await listed({ title: { operator: "beginsWith", value: "A" } })).toEqual(["Alpha"]);
        expect(await listed({ allOf: [{ libraryId: { operator: "is", value: world.libraryId } }, { genre: { operator: "isNot", value: "Drama" } }] })).not.toContain("Beta");
        expect(await listed({ anyOf: [{ genre: { operator: "is", value: "Drama" } }, { tag: { operator: "is", value: "Space" } }] })).toEqual(["Alpha", "Beta"]);

        const books = decode(
          SpringPage(KomgaBook),
          await json("/api/v1/books/list?page=0&size=20&unpaged=false&sort=metadata.numberSort,asc", {
            method: "POST",
            jar,
            body: { condition: { allOf: [{ seriesId: { operator: "is", value: world.alpha } }] } },
          }),
        );
        expect(books.content.map((book: { name: string }) => book.name)).toEqual(["Arrival", "Departure"]);
        expect(books.content[0].readProgress).toBeNull();
        // The series and book screens ask for collections and read lists: none.
        expect(await json(`/api/v1/series/${world.alpha}/collections`, { jar })).toEqual([]);
        expect(await json(`/api/v1/books/${books.content[0].id}/readlists`, { jar })).toEqual([]);
        decode(SpringPage(KomgaBook), await json(`/api/v1/books/ondeck?page=0&size=20&library_id=${world.libraryId}`, { jar }));
        decode(SpringPage(KomgaBook), await json("/api/v1/books/latest?page=0&size=20", { jar }));
        decode(SpringPage(KomgaSeries), await json("/api/v1/series/new?page=0&size=20", { jar }));
        decode(SpringPage(KomgaSeries), await json("/api/v1/series/updated?page=0&size=20", { jar }));
        const next = decode(KomgaBook, await json(`/api/v1/books/${books.content[0].id}/next`, { jar }));
        expect(next.id).toBe(books.content[1].id);
        expect((await call(`/api/v1/books/${books.content[0].id}/previous`, { jar })).status).toBe(404);
      });

      test("reading: pages, then PATCH read-progress page by page (204), completed:true, Komga's validation, DELETE", async () => {
        const [first] = decode(SpringPage(KomgaBook), await json(`/api/v1/series/${world.alpha}/books?sort=metadata.numberSort,asc`, { jar })).content;
        const pages = (await json(`/api/v1/books/${first.id}/pages`, { jar })) as { number: number }[];
        for (const { number } of pages.slice(0, 2)) {
          const image = await call(`/api/v1/books/${first.id}/pages/${number}`, { jar });
          expect(image.status).toBe(200);
          await image.arrayBuffer();
          const patch = await call(`/api/v1/books/${first.id}/read-progress`, { method: "PATCH", jar, body: { page: number } });
          expect(patch.status).toBe(204);
        }
        const reading = decode(KomgaBook, await json(`/api/v1/books/${first.id}`, { jar }));
        expect(reading.readProgress).toMatchObject({ page: 2, completed: false });
        const onDeck = decode(SpringPage(KomgaBook), await json(`/api/v1/books/ondeck?library_id=${world.libraryId}`, { jar }));
        expect(onDeck.content.map((book: { id: string }) => book.id)).toEqual([first.id]);
        const patch = (body: unknown) => call(`/api/v1/books/${first.id}/read-progress`, { method: "PATCH", jar, body });
        expect((await patch({ page: 99 })).status).toBe(400);
        expect((await patch({ page: 0 })).status).toBe(400);
        expect((await patch({})).status).toBe(400);
        expect((await patch({ completed: true, page: 1 })).status).toBe(204);
        const done = decode(KomgaBook, await json(`/api/v1/books/${first.id}`, { jar }));
        expect(done.readProgress).toMatchObject({ page: 3, completed: true });
        expect((await call(`/api/v1/books/${first.id}/read-progress`, { method: "DELETE", jar })).status).toBe(204);
        expect(decode(KomgaBook, await json(`/api/v1/books/${first.id}`, { jar })).readProgress).toBeNull();
        expect((await call(`/api/v1/books/01900000-0000-7000-8000-000000000000/read-progress`, { method: "PATCH", jar, body: { page: 1 } })).status).toBe(404);
      });

      test("a restart: the remember-me cookie alone signs in again and brings a new session", async () => {
        const restarted = jar.only("komga-remember-me");
        const user = decode(KomgaUser, await json("/api/v2/users/me", { jar: restarted }));
        expect(user.id).toBe(world.readerId);
        expect(restarted.cookies.get("KOMGA-SESSION")).toBeDefined();
        expect(restarted.cookies.get("KOMGA-SESSION")!.value).not.toBe(jar.cookies.get("KOMGA-SESSION")!.value);
      });

      test("logout ends the session and the remember-me cookie", async () => {
        const before = jar.only("KOMGA-SESSION", "komga-remember-me");
        const loggedOut = await call("/api/logout", { method: "POST", jar });
        expect(loggedOut.status).toBe(204);
        expect(jar.cookies.size).toBe(0);
        const stale = await call("/api/v2/users/me", { jar: before });
        expect(stale.status).toBe(401);
        await stale.body?.cancel();
      });

      test("Komga's header sessions: X-Auth-Token instead of the cookie, login/set-cookie, logout", async () => {
        const login = await call("/api/v2/users/me", { headers: { ...reader, "x-auth-token": "" } });
        expect(login.status).toBe(200);
        await login.body?.cancel();
        expect(login.headers.getSetCookie()).toEqual([]);
        const token = login.headers.get("x-auth-token")!;
        expect(token).toMatch(/^ks_/);
        const user = decode(KomgaUser, await json("/api/v2/users/me", { headers: { "x-auth-token": token } }));
        expect(user.id).toBe(world.readerId);
        const cookieJar = new CookieJar();
        expect((await call("/api/v1/login/set-cookie", { jar: cookieJar, headers: { "x-auth-token": token } })).status).toBe(204);
        expect(cookieJar.cookies.get("KOMGA-SESSION")?.value).toBe(token);
        expect((await call("/api/v1/libraries", { jar: cookieJar })).status).toBe(200);
        expect((await call("/api/logout", { method: "POST", headers: { "x-auth-token": token } })).status).toBe(204);
        expect((await call("/api/v1/libraries", { jar: cookieJar })).status).toBe(401);
      });

      test("a logout sent with Basic ends the session the same request started instead of handing it out", async () => {
        const logout = await call("/api/logout", { method: "POST", headers: { ...reader, "x-auth-token": "" } });
        expect(logout.status).toBe(204);
        expect(logout.headers.get("x-auth-token")).toBeNull();
        expect(logout.headers.getSetCookie().every((cookie) => /^[^=]+=;/.test(cookie))).toBe(true);
      });
    });

    describe("sessions follow Longbox's session store; visibility follows sharing tags", () => {
      test("an admin password reset and disabling the account end cookie sessions", async () => {
        const jar = new CookieJar();
        const userId = await createUser(server(), world.adminToken, "second");
        await json("/api/v2/users/me", { jar, headers: basic("second", PASSWORD) });
        expect((await call("/api/v2/users/me", { jar })).status).toBe(200);
        const admin = bearer(world.adminToken);
        const newPassword = "a brand new password";
        expect((await server().json("PUT", `/api/v1/users/${userId}`, { password: newPassword }, admin)).status).toBe(200);
        expect((await call("/api/v2/users/me", { jar })).status).toBe(401);

        await json("/api/v2/users/me", { jar, headers: basic("second", newPassword) });
        expect((await call("/api/v2/users/me", { jar })).status).toBe(200);
        expect((await server().json("PUT", `/api/v1/users/${userId}`, { disabled: true }, admin)).status).toBe(200);
        expect((await call("/api/v2/users/me", { jar })).status).toBe(401);
      });

      test("a series hidden by a sharing tag is missing from every route", async () => {
        const admin = bearer(world.adminToken);
        const tag = (await server().json("POST", "/api/v1/sharing-tags", { name: "Secret" }, admin)).body.id;
        expect((await server().json("PUT", `/api/v1/series/${world.beta}/sharing-tags`, { sharingTagIds: [tag] }, admin)).status).toBe(200);
        expect((await server().json("PUT", `/api/v1/users/${world.readerId}/sharing-tags`, { sharingTagId: tag, accessMode: "deny" }, admin)).status).toBe(200);
        const jar = new CookieJar();
        const names = decode(SpringPage(KomgaSeries), await json("/api/v1/series?unpaged=true", { jar, headers: reader })).content.map((entry: { name: string }) => entry.name);
        expect(names).not.toContain("Beta");
        expect((await call(`/api/v1/series/${world.beta}`, { jar })).status).toBe(404);
        expect((await call(`/api/v2/series/${world.beta}/read-progress/tachiyomi`, { jar })).status).toBe(404);
        const books = decode(SpringPage(KomgaBook), await json("/api/v1/books?unpaged=true", { jar })).content;
        expect(books.map((book: { seriesId: string }) => book.seriesId)).not.toContain(world.beta);
        expect(await json("/api/v1/genres", { jar })).toEqual(["Action", "Drama"]);
        expect((await json("/api/v1/authors", { jar })).map((author: { name: string }) => author.name)).not.toContain("Bob Other");
      });
    });

    describe("events", () => {
      test("sse/v1/events: LibraryChanged after a scan; the caller's own progress changes from any surface, nobody else's", async () => {
        const jar = new CookieJar();
        await json("/api/v2/users/me", { jar, headers: reader });
        const controller = new AbortController();
        const response = await server().fetch(`${BASE}/sse/v1/events`, { headers: jar.header(), signal: controller.signal });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toStartWith("text/event-stream");
        const stream = response.body!.getReader();
        const decoder = new TextDecoder();
        let text = "";
        const waitFor = async (marker: string) => {
          while (!text.includes(marker)) {
            const chunk = await stream.read();
            if (chunk.done) break;
            text += decoder.decode(chunk.value);
          }
        };
        await waitFor(": connected");
        await scan(server(), bearer(world.adminToken), world.libraryId);
        await waitFor("event: LibraryChanged");
        expect(text).toContain(`event: LibraryChanged\ndata: ${JSON.stringify({ libraryId: world.libraryId })}`);

        const [book] = decode(SpringPage(KomgaBook), await json(`/api/v1/series/${world.alpha}/books`, { jar })).content;
        // The admin's progress is not the reader's business; the reader's own REST call is.
        expect((await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 1 }, bearer(world.adminToken))).status).toBe(200);
        expect((await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 2 }, reader)).status).toBe(200);
        await waitFor("event: ReadProgressSeriesChanged");
        expect((await call(`/api/v1/books/${book.id}/read-progress`, { method: "DELETE", jar })).status).toBe(204);
        await waitFor("event: ReadProgressSeriesDeleted");
        controller.abort();
        const events = text.split("\n\n").filter((block) => block.startsWith("event: ReadProgress"));
        expect(events).toEqual([
          `event: ReadProgressChanged\ndata: ${JSON.stringify({ bookId: book.id, userId: world.readerId })}`,
          `event: ReadProgressSeriesChanged\ndata: ${JSON.stringify({ seriesId: world.alpha, userId: world.readerId })}`,
          `event: ReadProgressDeleted\ndata: ${JSON.stringify({ bookId: book.id, userId: world.readerId })}`,
          `event: ReadProgressSeriesDeleted\ndata: ${JSON.stringify({ seriesId: world.alpha, userId: world.readerId })}`,
        ]);
      });
    });
  },
  { komga_api: { enabled: true } },
);

test("the Komga API is not mounted unless enabled", async () => {
  const { startTestServer } = await import("../helpers/server");
  const plain: TestServer = await startTestServer("sqlite");
  try {
    const response = await plain.fetch("/komga/api/v2/users/me");
    expect(response.status).toBe(404);
    await response.body?.cancel();
  } finally {
    await plain.stop();
  }
});
