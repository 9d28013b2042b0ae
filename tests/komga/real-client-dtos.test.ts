/**
 * The answers of the Komga API, the KOReader sync API and OPDS over a library of REAL fixture
 * files (cbz, cbr, epub, pdf, a few broken on purpose), decoded with the DTOs of the clients'
 * own source, replaying the requests those clients send on their default screens. Every mismatch
 * of every answer is collected and reported at once (endpoint, where in the answer, what failed).
 *
 * Client sources (snapshots read 2026-08):
 * - KC  = Snd-R/komga-client @597c491 (tag 0.10.2+; Komelia pins 0.10.3), src/commonMain/kotlin/snd/komga/client/
 *         JSON: ignoreUnknownKeys=true, explicitNulls left true (KomgaClientFactory.kt:34-37), so every
 *         property without a default must be present, nullable ones included (null allowed only there).
 * - KOM = Snd-R/Komelia @0b6bf5b (which screens call what).
 * - EXT = keiyoushi/extensions-source @fd4236e src/all/komga/src/eu/kanade/tachiyomi/extension/all/komga/
 * - TRK = mihonapp/mihon @a2c24ff app/src/main/java/eu/kanade/tachiyomi/data/track/komga/
 *         Mihon's Json: ignoreUnknownKeys=true, explicitNulls=false (app/src/main/java/mihon/app/di/AppBindings.kt:65-68):
 *         a missing NULLABLE field is fine, a missing or null NON-NULL field without a default fails.
 * - KR  = koreader/koreader @fc88887 plugins/kosync.koplugin/main.lua
 */
import { Type as T, type TSchema } from "@sinclair/typebox";
import Ajv from "ajv";
import { beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, login, PASSWORD } from "../helpers/auth";
import { libraryRoot, scannedLibrary } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { referencePartialMd5 } from "../koreader/support";
import { KomgaBook, KomgaBookPage, KomgaLibrary, KomgaSeries, KomgaUser, R2Locator, R2Positions, SpringPage } from "./schemas";

const ajv = new Ajv({ allErrors: true, strict: false });
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
/** A nullable field that Mihon (explicitNulls=false) may also find missing. */
const Maybe = <S extends TSchema>(schema: S) => T.Optional(Nullable(schema));
const Strings = T.Array(T.String());
/** kotlin.time.Instant (KC): ISO-8601 with Z or an offset. */
const KInstant = T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$" });
/** kotlinx.datetime.LocalDate (KC): yyyy-MM-dd only. */
const KLocalDate = T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
const Lock = T.Boolean();

// ---- Mihon's Komga extension (EXT dto/Dto.kt, dto/PageWrapperDto.kt) ----------------------------------------
/** EXT dto/PageWrapperDto.kt:6-16 */
const MihonPage = (item: TSchema) =>
  T.Object({ content: T.Array(item), empty: T.Boolean(), first: T.Boolean(), last: T.Boolean(), number: T.Integer(), numberOfElements: T.Integer(), size: T.Integer(), totalElements: T.Integer(), totalPages: T.Integer() });
/** EXT dto/Dto.kt:12-15 */
const MihonLibrary = T.Object({ id: T.String(), name: T.String() });
/** EXT dto/Dto.kt:170-173 */
const MihonAuthor = T.Object({ name: T.String(), role: T.String() });
/** EXT dto/Dto.kt:18-27 (SeriesDto), 51-72 (SeriesMetadataDto), 75-84 (BookMetadataAggregationDto) */
const MihonSeries = T.Object({
  id: T.String(),
  libraryId: T.String(),
  name: T.String(),
  created: Maybe(T.String()),
  lastModified: Maybe(T.String()),
  fileLastModified: T.String(),
  booksCount: T.Integer(),
  metadata: T.Object({
    status: T.String(),
    created: Maybe(T.String()),
    lastModified: Maybe(T.String()),
    title: T.String(),
    titleSort: T.String(),
    summary: T.String(),
    summaryLock: Lock,
    readingDirection: T.String(), // non-null String here (Dto.kt:59), unlike KC's nullable enum
    readingDirectionLock: Lock,
    publisher: T.String(),
    publisherLock: Lock,
    ageRating: Maybe(T.Integer()),
    ageRatingLock: Lock,
    language: T.String(),
    languageLock: Lock,
    genres: Strings,
    genresLock: Lock,
    tags: Strings,
    tagsLock: Lock,
    totalBookCount: Maybe(T.Integer()),
  }),
  booksMetadata: T.Object({
    authors: T.Optional(T.Array(MihonAuthor)),
    tags: T.Optional(Strings),
    releaseDate: Maybe(T.String()),
    summary: T.String(),
    summaryNumber: T.String(),
    created: T.String(),
    lastModified: T.String(),
  }),
});
/** EXT dto/Dto.kt:87-99 (BookDto), 136-142 (MediaDto: mediaType is a non-null String), 152-167 (BookMetadataDto) */
const MihonBook = T.Object({
  id: T.String(),
  seriesId: T.String(),
  seriesTitle: T.String(),
  name: T.String(),
  number: T.Number(),
  created: Maybe(T.String()),
  lastModified: Maybe(T.String()),
  fileLastModified: T.String(),
  sizeBytes: T.Integer(),
  size: T.String(),
  media: T.Object({
    status: T.String(),
    mediaType: T.String(),
    pagesCount: T.Integer(),
    mediaProfile: T.Optional(T.String()),
    epubDivinaCompatible: T.Optional(T.Boolean()),
  }),
  metadata: T.Object({
    title: T.String(),
    titleLock: Lock,
    summary: T.String(),
    summaryLock: Lock,
    number: T.String(),
    numberLock: Lock,
    numberSort: T.Number(),
    numberSortLock: Lock,
    releaseDate: Maybe(T.String()),
    releaseDateLock: Lock,
    authors: T.Array(MihonAuthor),
    authorsLock: Lock,
    tags: Strings,
    tagsLock: Lock,
  }),
});
/** EXT dto/Dto.kt:145-149 */
const MihonPageDto = T.Object({ number: T.Integer(), fileName: T.String(), mediaType: T.String() });
/** EXT dto/Dto.kt:176-184 */
const MihonCollection = T.Object({ id: T.String(), name: T.String(), ordered: T.Boolean(), seriesIds: Strings, createdDate: T.String(), lastModifiedDate: T.String(), filtered: T.Boolean() });
/** EXT dto/Dto.kt:187-195 */
const MihonReadList = T.Object({ id: T.String(), name: T.String(), summary: T.String(), bookIds: Strings, createdDate: T.String(), lastModifiedDate: T.String(), filtered: T.Boolean() });

// ---- Mihon's tracker (TRK KomgaModels.kt) -------------------------------------------------------------------
/** TRK KomgaModels.kt:6-19 (SeriesDto with the three read counts), 22-42, 45-53 */
const TrackerSeries = T.Object({
  id: T.String(),
  libraryId: T.String(),
  name: T.String(),
  fileLastModified: T.String(),
  booksCount: T.Integer(),
  booksReadCount: T.Integer(),
  booksUnreadCount: T.Integer(),
  booksInProgressCount: T.Integer(),
  metadata: MihonSeries.properties.metadata,
  booksMetadata: T.Object({ releaseDate: Maybe(T.String()), summary: T.String(), summaryNumber: T.String(), created: T.String(), lastModified: T.String() }),
});
/** TRK KomgaModels.kt:72-79 */
const TrackerReadList = T.Object({ id: T.String(), name: T.String(), bookIds: Strings, createdDate: T.String(), lastModifiedDate: T.String(), filtered: T.Boolean() });
/** TRK KomgaModels.kt:82-88 (read lists: v1) */
const TrackerProgressV1 = T.Object({ booksCount: T.Integer(), booksReadCount: T.Integer(), booksUnreadCount: T.Integer(), booksInProgressCount: T.Integer(), lastReadContinuousIndex: T.Integer() });
/** TRK KomgaModels.kt:100-107 (series: v2) */
const TrackerProgressV2 = T.Object({
  booksCount: T.Integer(),
  booksReadCount: T.Integer(),
  booksUnreadCount: T.Integer(),
  booksInProgressCount: T.Integer(),
  lastReadContinuousNumberSort: T.Number(),
  maxNumberSort: T.Number(),
});

// ---- komga-client (KC), used by Komelia ---------------------------------------------------------------------
/** KC common/Page.kt:8-20, 73-87: every Spring field (schemas.ts SpringPage). */
const KcPage = SpringPage;
/** KC collection/KomgaCollection.kt:16-24 */
const KcCollection = T.Object({ id: T.String(), name: T.String(), ordered: T.Boolean(), seriesIds: Strings, createdDate: KInstant, lastModifiedDate: KInstant, filtered: T.Boolean() });
/** KC readlist/KomgaReadList.kt:16-25 (ordered is required here, unlike Mihon's ReadListDto) */
const KcReadList = T.Object({
  id: T.String(),
  name: T.String(),
  summary: T.String(),
  ordered: T.Boolean(),
  bookIds: Strings,
  createdDate: KInstant,
  lastModifiedDate: KInstant,
  filtered: T.Boolean(),
});
/**
 * KC book/WebPub.kt:68-79: WPLink; properties is Map<String, Map<String, JsonElement>> (each value an OBJECT).
 * alternate/children are checked one level deep (a recursive schema would clash in ajv).
 */
const wpLinkFields = {
  title: T.Optional(Nullable(T.String())),
  rel: T.Optional(Nullable(T.String())),
  href: T.Optional(Nullable(T.String())),
  type: T.Optional(Nullable(T.String())),
  templated: T.Optional(Nullable(T.Boolean())),
  width: T.Optional(Nullable(T.Integer())),
  height: T.Optional(Nullable(T.Integer())),
  properties: T.Optional(T.Record(T.String(), T.Record(T.String(), T.Unknown()))),
};
const WPLinkLeaf = T.Object({ ...wpLinkFields, alternate: T.Optional(T.Array(T.Object({}))), children: T.Optional(T.Array(T.Object({}))) });
const WPLink = T.Object({ ...wpLinkFields, alternate: T.Optional(T.Array(WPLinkLeaf)), children: T.Optional(T.Array(WPLinkLeaf)) });
/** KC book/WebPub.kt:24-52 (WPMetadata: title a String; contributors, subject, publisher lists of STRINGS; language one String) */
const WPMetadata = T.Object({
  title: T.String(),
  identifier: T.Optional(Nullable(T.String())),
  type: T.Optional(Nullable(T.String())),
  conformsTo: T.Optional(Nullable(T.String())),
  sortAs: T.Optional(Nullable(T.String())),
  subtitle: T.Optional(Nullable(T.String())),
  modified: T.Optional(Nullable(KInstant)),
  published: T.Optional(Nullable(KLocalDate)),
  language: T.Optional(Nullable(T.String())),
  ...Object.fromEntries(
    ["author", "translator", "editor", "artist", "illustrator", "letterer", "penciler", "colorist", "inker", "contributor", "publisher", "subject"].map((name) => [name, T.Optional(Strings)]),
  ),
  readingProgression: T.Optional(Nullable(T.Union(["rtl", "ltr", "ttb", "btt", "auto"].map((value) => T.Literal(value))))), // WebPub.kt:82-97
  description: T.Optional(Nullable(T.String())),
  numberOfPages: T.Optional(Nullable(T.Integer())),
  belongsTo: T.Optional(
    Nullable(
      T.Object({
        series: T.Optional(T.Array(T.Object({ name: T.String(), position: T.Optional(Nullable(T.Number())), links: T.Optional(T.Array(WPLink)) }))),
        collection: T.Optional(T.Array(T.Object({ name: T.String(), position: T.Optional(Nullable(T.Number())), links: T.Optional(T.Array(WPLink)) }))),
      }),
    ),
  ),
  rendition: T.Optional(T.Record(T.String(), T.Unknown())),
});
/** KC book/WebPub.kt:10-21 */
const WPPublication = T.Object({
  metadata: WPMetadata,
  links: T.Array(WPLink),
  images: T.Optional(T.Array(WPLink)),
  readingOrder: T.Optional(T.Array(WPLink)),
  resources: T.Optional(T.Array(WPLink)),
  toc: T.Optional(T.Array(WPLink)),
  landmarks: T.Optional(T.Array(WPLink)),
  pageList: T.Optional(T.Array(WPLink)),
});
/** KC book/Readium.kt: R2Locator and R2Positions are ./schemas.ts's (href and type have defaults but are NOT nullable). */
/** KC book/Readium.kt:7-10, 38-42 */
const R2Progression = T.Object({ modified: KInstant, device: T.Object({ id: T.String(), name: T.String() }), locator: R2Locator });

// ---- KOReader (KR plugins/kosync.koplugin/main.lua) ------------------------------------------------------
/**
 * main.lua:851 `if not body.percentage` (missing = no progress); 861-862 device and device_id compared
 * with its own strings; 872 Math.roundPercent(body.percentage) (arithmetic: a number); 878 body.progress
 * compared with its own string progress and 708 tonumber(progress) / GotoXPointer(progress) (a string);
 * 898-899 body.timestamp compared with os.time() (a number).
 */
const KosyncProgress = T.Object({ document: T.String(), percentage: T.Number(), progress: T.String(), device: T.String(), device_id: T.String(), timestamp: T.Number() });

const compiled = new Map<TSchema, ReturnType<typeof ajv.compile>>();
/** Records every mismatch of `value` against `schema`, named by the request that gave it. */
function check(problems: string[], where: string, schema: TSchema, value: unknown): void {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (validate(value)) return;
  for (const error of validate.errors ?? []) {
    if (error.keyword === "anyOf" || error.keyword === "if") continue;
    const got = error.instancePath.split("/").slice(1).reduce<any>((node, key) => node?.[key], value);
    problems.push(`${where} ${error.instancePath || "/"}: ${error.message}${error.params && "missingProperty" in error.params ? "" : ` (got ${JSON.stringify(got)?.slice(0, 80)})`}`);
  }
}

/** Real fixtures (SOURCES.md); a few broken on purpose ("Broken/"), unnumbered files, loose files. */
const COMICS = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001.cbz",
  "Captain Science/Captain Science #001-comet.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Captain Science/Captain Science #001-cbi.cbr": "cbr/comicbox/Captain Science #001-cix-cbi.cbr",
  "Kavita/ComicInfo.zip": "cbz/kavita/ComicInfo.zip",
  "Kavita/ComicInfo2.zip": "cbz/kavita/ComicInfo2.zip",
  "Kavita/ComicInfo_authors.zip": "cbz/kavita/ComicInfo_authors.zip",
  "Kavita/Umlaut.zip": "cbz/kavita/Umlaut.zip",
  "Kavita/sorting.zip": "cbz/kavita/sorting.zip",
  "Stump/science_comics_001.cbz": "cbz/stump/science_comics_001.cbz",
  "Stump/book-image-format-test.zip": "cbz/stump/book-image-format-test.zip",
  "Stump/book-complex-tree.rar": "cbr/stump/book-complex-tree.rar",
  "Archives/zip.zip": "cbz/komga/zip.zip",
  "Archives/rar4.rar": "cbr/komga/rar4.rar",
  "Archives/rar5.rar": "cbr/komga/rar5.rar",
  "Archives/rar5-solid.rar": "cbr/junrar/rar5-solid.rar",
  "Archives/chinese.zip": "cbz/zip2/chinese.zip",
  "Archives/data_descriptor.zip": "cbz/zip2/data_descriptor.zip",
  "Broken/empty.zip": "cbz/kavita/empty.zip",
  "Broken/invalid_offset.zip": "cbz/zip2/invalid_offset.zip",
  "Broken/rar4-encrypted.rar": "cbr/komga/rar4-encrypted.rar",
  "loose-unicode.rar": "cbr/junrar/unicode.rar",
};
const BOOKS = {
  "Epub/childrens-literature.epub": "epub/idpf-built/childrens-literature.epub",
  "Epub/haruko-jpeg.epub": "epub/idpf-built/haruko-jpeg.epub",
  "Epub/kusamakura.epub": "epub/idpf-built/kusamakura-japanese-vertical-writing.epub",
  "Epub/regime-anticancer-arabic.epub": "epub/idpf-built/regime-anticancer-arabic.epub",
  "Epub/svg-in-spine.epub": "epub/idpf-built/svg-in-spine.epub",
  "Epub/wasteland-woff-obf.epub": "epub/idpf-built/wasteland-woff-obf.epub",
  "Epub/TitleWithVolume.epub": "epub/kavita/TitleWithVolume.epub",
  "Epub/Incomplete Theft.epub": "epub/komga/The Incomplete Theft - Ralph Burke.epub",
  "Epub/epub3.epub": "epub/komga/epub3.epub",
  "Epub/SmokeTest-EPUB2.epub": "epub/readium/SmokeTest-EPUB2.epub",
  "Epub/epub30-test-0201.epub": "epub/readium/epub30-test-0201.epub",
  "Epub/leaves.epub": "epub/stump/leaves.epub",
  "Epub/book.epub": "epub/stump/book.epub",
  "Pdf/komga.pdf": "pdf/komga/komga.pdf",
  "Pdf/test_cix.pdf": "pdf/comicbox/test_cix.pdf",
  "Pdf/labelled_pages.pdf": "pdf/pdfjs/labelled_pages.pdf",
  "Pdf/tracemonkey.pdf": "pdf/pdfjs/tracemonkey.pdf",
  "Pdf/test_ſ.pdf": "pdf/kavita/test_ſ.pdf",
  "Broken/zip-as-epub.epub": "epub/komga/zip-as-epub.epub",
  "Broken/helloworld-bad.pdf": "pdf/pdfjs/helloworld-bad.pdf",
  "tall.pdf": "pdf/stump/tall.pdf",
};

const BASE = "/komga";
const MIHON = { "user-agent": "TachiyomiKomga/1.4.50" };
const TRACKER = { "user-agent": "Mihon v0.19.0 (app.mihon)" };
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/jxl", "image/heif", "image/avif"]; // EXT Komga.kt SUPPORTED_IMAGE_TYPES

forEachDatabase(
  "real clients' DTOs over real fixture files",
  (server) => {
    const reader = basic("reader", PASSWORD);
    const world = { comics: "", books: "", collection: "", readList: "", readerToken: "", seriesIds: [] as string[], bookIds: [] as string[], readable: new Set<string>() };

    const call = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
      server().fetch(`${BASE}${path}`, {
        method: init.method ?? "GET",
        headers: { ...reader, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });

    /** A JSON answer checked against `schema`; a non-2xx answer is itself a problem. */
    async function answer(problems: string[], path: string, schema: TSchema, init: Parameters<typeof call>[1] = {}): Promise<any> {
      const response = await call(path, init);
      const where = `${init.method ?? "GET"} ${path}`;
      if (response.status !== 200) {
        problems.push(`${where}: status ${response.status} ${(await response.text()).slice(0, 120)}`);
        return undefined;
      }
      const body = await response.json();
      check(problems, where, schema, body);
      return body;
    }

    /** An image answer: 200 and an image/* type (Mihon's Coil and Komelia decode the bytes). */
    async function image(problems: string[], path: string, headers: Record<string, string> = {}): Promise<void> {
      const response = await call(path, { headers });
      const type = response.headers.get("content-type") ?? "";
      const bytes = (await response.arrayBuffer()).byteLength;
      if (response.status !== 200 || !type.startsWith("image/") || bytes === 0) problems.push(`GET ${path}: status ${response.status}, ${type}, ${bytes} bytes`);
    }

    beforeAll(async () => {
      const adminToken = (await adminSession(server())).token;
      const admin = bearer(adminToken);
      await createUser(server(), adminToken, "reader");
      world.readerToken = (await login(server(), "reader")).token;
      world.comics = await scannedLibrary(server(), adminToken, "Comics", COMICS);
      world.books = await scannedLibrary(server(), adminToken, "Books", BOOKS);
      const series = (await server().json("GET", "/api/v1/series?pageSize=200", undefined, admin)).body.data as { id: string }[];
      const books = (await server().json("GET", "/api/v1/books?pageSize=500", undefined, admin)).body.data as { id: string; pageCount: number; filePath: string }[];
      world.readable = new Set(books.filter((book) => book.pageCount > 0).map((book) => book.filePath));
      world.seriesIds = series.map((entry) => entry.id);
      world.bookIds = books.map((entry) => entry.id);
      // One series with every metadata field an admin can set (issue 32), so each client below
      // decodes set values too: a status, an age rating, links, genres, tags, authors.
      const edited = await server().json(
        "PATCH",
        `/api/v1/series/${world.seriesIds[0]}`,
        {
          status: "ended",
          ageRating: 12,
          language: "fr",
          genres: ["Science Fiction"],
          tags: ["space"],
          authors: [{ name: "Ann Writer", role: "writer" }],
          links: [{ label: "Wiki", url: "https://example.org/wiki" }],
        },
        admin,
      );
      expect(edited.status).toBe(200);
      const collection = await server().json("POST", "/api/v1/collections", { name: "Everything", ordered: true, seriesIds: world.seriesIds }, admin);
      expect(collection.status).toBe(201);
      world.collection = collection.body.id;
      const readList = await server().json("POST", "/api/v1/readlists", { name: "All books", bookIds: world.bookIds }, admin);
      expect(readList.status).toBe(201);
      world.readList = readList.body.id;
    }, 120_000);

    test("Mihon's extension: filters, browse (series, books, read lists, a collection), details, chapters, pages, thumbnails", async () => {
      const problems: string[] = [];
      const get = (path: string, schema: TSchema) => answer(problems, path, schema, { headers: MIHON });
      // Komga.kt:472-484 filter options.
      await get("/api/v1/libraries", T.Array(MihonLibrary));
      await get("/api/v1/collections?unpaged=true", MihonPage(MihonCollection));
      await get("/api/v1/genres", Strings);
      await get("/api/v1/tags", Strings);
      await get("/api/v1/publishers", Strings);
      await get("/api/v1/authors", T.Array(MihonAuthor));
      // Komga.kt:133-176 browse: popular, latest, every page; books and read lists by "Search for"; a collection.
      const seriesIds = new Set<string>();
      for (const sort of ["metadata.titleSort,asc", "lastModifiedDate,desc"]) {
        for (let page = 0; page < 20; page++) {
          const body = await get(`/api/v1/series?search=&page=${page}&deleted=false&sort=${sort}`, MihonPage(MihonSeries));
          for (const entry of body?.content ?? []) seriesIds.add(entry.id);
          if (!body || body.last) break;
        }
      }
      const bookIds = new Set<string>();
      for (let page = 0; page < 30; page++) {
        const body = await get(`/api/v1/books?search=&page=${page}&deleted=false&sort=name,asc`, MihonPage(MihonBook));
        for (const entry of body?.content ?? []) bookIds.add(entry.id);
        if (!body || body.last) break;
      }
      await get("/api/v1/readlists?search=&page=0&deleted=false&sort=name,asc", MihonPage(MihonReadList));
      await get(`/api/v1/collections/${world.collection}/series?search=&page=0&deleted=false&sort=metadata.titleSort,asc`, MihonPage(MihonSeries));
      expect(seriesIds.size).toBe(world.seriesIds.length);
      expect(bookIds.size).toBe(world.bookIds.length);

      // Details (Komga.kt:195-203) and chapters (206-209) of every series, the read list, and books as manga.
      const chapters: any[] = [];
      for (const id of seriesIds) {
        await get(`/api/v1/series/${id}`, MihonSeries);
        const page = await get(`/api/v1/series/${id}/books?unpaged=true&media_status=READY&deleted=false`, MihonPage(MihonBook));
        chapters.push(...(page?.content ?? []));
        await image(problems, `/api/v1/series/${id}/thumbnail`, MIHON);
      }
      await get(`/api/v1/readlists/${world.readList}`, MihonReadList);
      await get(`/api/v1/readlists/${world.readList}/books?unpaged=true&media_status=READY&deleted=false`, MihonPage(MihonBook));
      await image(problems, `/api/v1/readlists/${world.readList}/thumbnail`, MIHON);
      for (const id of bookIds) {
        await get(`/api/v1/books/${id}`, MihonBook);
        await get(`/api/v1/books/${id}?unpaged=true&media_status=READY&deleted=false`, MihonBook);
        await image(problems, `/api/v1/books/${id}/thumbnail`, MIHON);
      }
      // Pages of every chapter Mihon keeps (Komga.kt:235-237), and the first image as Mihon asks it (265-277).
      for (const book of chapters.filter((entry) => entry.media?.mediaProfile !== "EPUB" || entry.media?.epubDivinaCompatible)) {
        const pages = await get(`/api/v1/books/${book.id}/pages`, T.Array(MihonPageDto));
        const first = pages?.[0];
        if (first) await image(problems, `/api/v1/books/${book.id}/pages/${first.number}${IMAGE_TYPES.includes(first.mediaType) ? "" : "?convert=png"}`, { ...MIHON, accept: "image/*,*/*;q=0.8" });
      }
      expect(problems).toEqual([]);
    }, 120_000);

    test("Mihon's tracker: every series and the read list, with their tachiyomi progress", async () => {
      const problems: string[] = [];
      for (const id of world.seriesIds) {
        await answer(problems, `/api/v1/series/${id}`, TrackerSeries, { headers: TRACKER }); // KomgaApi.kt:45-48
        await answer(problems, `/api/v2/series/${id}/read-progress/tachiyomi`, TrackerProgressV2, { headers: TRACKER }); // KomgaApi.kt:52-60
      }
      await answer(problems, `/api/v1/readlists/${world.readList}`, TrackerReadList, { headers: TRACKER }); // KomgaApi.kt:39-43
      await answer(problems, `/api/v1/readlists/${world.readList}/read-progress/tachiyomi`, TrackerProgressV1, { headers: TRACKER }); // KomgaApi.kt:61
      // The tracker marks the first two books read on the whole list, broken books included
      // (it counts only books that can hold progress, so one without pages does not stop the run).
      const put = await call(`/api/v1/readlists/${world.readList}/read-progress/tachiyomi`, { method: "PUT", headers: TRACKER, body: { lastBookRead: 2 } });
      if (put.status < 200 || put.status > 299) problems.push(`PUT read-list tachiyomi progress: ${put.status}`);
      const after = await answer(problems, `/api/v1/readlists/${world.readList}/read-progress/tachiyomi`, TrackerProgressV1, { headers: TRACKER });
      expect({ continuous: after?.lastReadContinuousIndex, read: after?.booksReadCount }).toEqual({ continuous: 2, read: 2 });
      for (const id of world.bookIds) await call(`/api/v1/books/${id}/read-progress`, { method: "DELETE" });
      expect(problems).toEqual([]);
    }, 60_000);

    test("Komelia: login, home, library tabs (series, collections, read lists), series and book screens, pages, thumbnails", async () => {
      const problems: string[] = [];
      const get = (path: string, schema: TSchema) => answer(problems, path, schema);
      const post = (path: string, schema: TSchema, body: unknown) => answer(problems, path, schema, { method: "POST", body });
      await get("/api/v2/users/me?remember-me=true", KomgaUser);
      await get("/api/v1/libraries", T.Array(KomgaLibrary));
      // The series filter panel's choices (KC's referential client: lists of strings).
      const choices: Record<string, string[]> = {};
      for (const path of ["/api/v1/genres", "/api/v1/tags", "/api/v1/tags/series", "/api/v1/tags/book", "/api/v1/age-ratings", "/api/v1/languages", "/api/v1/publishers", "/api/v1/series/release-dates", "/api/v1/authors/names"]) {
        const values = (await get(path, Strings)) as string[] | undefined;
        choices[path] = values ?? [];
        if (path.endsWith("age-ratings") && !values?.includes("12")) problems.push(`GET ${path}: the edited series' rating 12 is missing (${JSON.stringify(values)})`);
      }
      // Every choice the panel offers finds a series once picked (KOM SeriesFilterState.kt: `is`
      // for a language or publisher, a year as after the last day of the year before and before
      // the first of the year after).
      const picks = [
        ...choices["/api/v1/languages"]!.map((value) => ({ language: { operator: "is", value } })),
        ...choices["/api/v1/publishers"]!.map((value) => ({ publisher: { operator: "is", value } })),
        ...choices["/api/v1/series/release-dates"]!.map((year) => ({
          allOf: [
            { releaseDate: { operator: "after", dateTime: `${Number(year) - 1}-12-31T00:00:00Z` } },
            { releaseDate: { operator: "before", dateTime: `${Number(year) + 1}-01-01T00:00:00Z` } },
          ],
        })),
      ];
      for (const pick of picks) {
        const found = (await post("/api/v1/series/list?page=0&size=20&unpaged=false", KcPage(KomgaSeries), { condition: { allOf: [pick] } })) as { content: unknown[] } | undefined;
        if (!found?.content.length) problems.push(`POST /api/v1/series/list ${JSON.stringify(pick)}: a choice the panel offered finds no series`);
      }
      // The panel's language and author picks become series conditions (KOM SeriesFilterState.kt:
      // a picked value is `is`, an author {name, role}); the edited series must be found by the
      // language and author set on it, whatever its books say.
      for (const condition of [{ language: { operator: "is", value: "fr" } }, { author: { operator: "is", value: { name: "Ann Writer", role: "writer" } } }]) {
        const found = (await post("/api/v1/series/list?page=0&size=20&unpaged=false", KcPage(KomgaSeries), { condition: { allOf: [condition] } })) as { content: { id: string }[] } | undefined;
        if (!found?.content.some((entry) => entry.id === world.seriesIds[0])) problems.push(`POST /api/v1/series/list ${JSON.stringify(condition)}: the edited series is missing`);
      }
      // Home (KOM komelia-ui/.../home/HomeViewModel.kt:96-130): keep reading, on deck, recent books, new and updated series.
      await post("/api/v1/books/list?page=0&size=20&unpaged=false&sort=readProgress.readDate,desc", KcPage(KomgaBook), { condition: { allOf: [{ readStatus: { operator: "is", value: "IN_PROGRESS" } }] } });
      await get("/api/v1/books/ondeck?size=20", KcPage(KomgaBook));
      await post("/api/v1/books/list?page=0&size=20&unpaged=false&sort=createdDate,desc", KcPage(KomgaBook), { condition: { allOf: [] } });
      await get("/api/v1/series/new?size=20", KcPage(KomgaSeries));
      await get("/api/v1/series/updated?size=20", KcPage(KomgaSeries));
      // Library tabs over both libraries: KC joins library ids with ", " (HttpCollectionClient.kt:26, joinToString()).
      const both = `${world.comics}, ${world.books}`;
      const series = await post("/api/v1/series/list?page=0&size=500&unpaged=false&sort=metadata.titleSort,asc", KcPage(KomgaSeries), {
        condition: { anyOf: [{ libraryId: { operator: "is", value: world.comics } }, { libraryId: { operator: "is", value: world.books } }] },
      });
      expect(series?.totalElements).toBe(world.seriesIds.length);
      const collections = await get(`/api/v1/collections?library_id=${encodeURIComponent(both)}&page=0&size=20`, KcPage(KcCollection));
      const readLists = await get(`/api/v1/readlists?library_id=${encodeURIComponent(both)}&page=0&size=20`, KcPage(KcReadList));
      const allCollections = await get("/api/v1/collections?unpaged=true", KcPage(KcCollection));
      const allReadLists = await get("/api/v1/readlists?unpaged=true", KcPage(KcReadList));
      if (collections?.totalElements !== allCollections?.totalElements) problems.push(`GET /api/v1/collections?library_id=<a>, <b>: ${collections?.totalElements} collections of ${allCollections?.totalElements}`);
      if (readLists?.totalElements !== allReadLists?.totalElements) problems.push(`GET /api/v1/readlists?library_id=<a>, <b>: ${readLists?.totalElements} read lists of ${allReadLists?.totalElements}`);
      await get(`/api/v1/collections/${world.collection}`, KcCollection);
      await get(`/api/v1/collections/${world.collection}/series?page=0&size=20`, KcPage(KomgaSeries));
      await image(problems, `/api/v1/collections/${world.collection}/thumbnail`, { accept: "*/*" });
      await get(`/api/v1/readlists/${world.readList}`, KcReadList);
      await get(`/api/v1/readlists/${world.readList}/books?page=0&size=20`, KcPage(KomgaBook));
      await image(problems, `/api/v1/readlists/${world.readList}/thumbnail`, { accept: "*/*" });
      // Series screens: the series, its books (KOM SeriesBooksState: seriesId is X), its collections; thumbnails.
      for (const id of world.seriesIds) {
        await get(`/api/v1/series/${id}`, KomgaSeries);
        await post("/api/v1/books/list?page=0&size=100&unpaged=false&sort=metadata.numberSort,asc", KcPage(KomgaBook), { condition: { allOf: [{ seriesId: { operator: "is", value: id } }] } });
        await get(`/api/v1/series/${id}/collections`, T.Array(KcCollection));
        await image(problems, `/api/v1/series/${id}/thumbnail`, { accept: "*/*" });
      }
      // Book screens: the book, its read lists (KOM readlist/BookReadListsState.kt:69), its pages and thumbnail.
      for (const id of world.bookIds) {
        const book = await get(`/api/v1/books/${id}`, KomgaBook);
        await get(`/api/v1/books/${id}/readlists`, T.Array(KcReadList));
        await image(problems, `/api/v1/books/${id}/thumbnail`, { accept: "*/*" });
        if (book?.media?.status === "READY" && book.media.mediaProfile !== "EPUB") {
          const pages = await get(`/api/v1/books/${id}/pages`, T.Array(KomgaBookPage));
          if (pages?.length) await image(problems, `/api/v1/books/${id}/pages/1`);
        }
      }
      expect(problems).toEqual([]);
    }, 120_000);

    test("Komelia's EPUB reader: manifest, positions, progression (none, then written and read back) of every READY EPUB", async () => {
      const problems: string[] = [];
      let epubs = 0;
      for (const id of world.bookIds) {
        const book = await (await call(`/api/v1/books/${id}`)).json();
        if (book.media?.mediaProfile !== "EPUB" || book.media.status !== "READY") continue;
        epubs++;
        // KOM reader/epub/KomgaEpubReaderState.kt:118 (progression), 156 (manifest); BookResourceRequest.kt:46 (positions)
        const manifest = await answer(problems, `/api/v1/books/${id}/manifest`, WPPublication, { headers: { accept: "*/*" } });
        const positions = await answer(problems, `/api/v1/books/${id}/positions`, R2Positions, { headers: { accept: "*/*" } });
        const none = await call(`/api/v1/books/${id}/progression`, { headers: { accept: "*/*" } });
        if (none.status !== 204) problems.push(`GET /api/v1/books/${id}/progression (no progress): ${none.status}, expected 204 (KC HttpBookClient.kt:207-213)`);
        await none.body?.cancel();
        for (const link of (manifest?.readingOrder ?? []).slice(0, 2)) {
          const resource = await server().fetch(new URL(link.href, server().url).pathname, { headers: reader });
          if (!resource.ok) problems.push(`GET ${link.href}: ${resource.status}`);
          await resource.body?.cancel();
        }
        const target = positions?.positions?.[Math.floor((positions?.positions?.length ?? 0) / 2)];
        if (!target) {
          problems.push(`GET /api/v1/books/${id}/positions: no positions (${book.name})`);
          continue;
        }
        // KC HttpBookClient.kt:215-220: the locator as Komelia encodes it (encodeDefaults=false leaves nulls out).
        const put = await call(`/api/v1/books/${id}/progression`, {
          method: "PUT",
          headers: { accept: "*/*" },
          body: { modified: "2026-08-01T10:00:00.123456Z", device: { id: "komelia-desktop", name: "Komelia" }, locator: { href: target.href, type: target.type, locations: { progression: 0.5, position: target.locations?.position, totalProgression: target.locations?.totalProgression } } },
        });
        if (put.status !== 204) problems.push(`PUT /api/v1/books/${id}/progression: ${put.status} ${(await put.text()).slice(0, 160)} (${book.name})`);
        await answer(problems, `/api/v1/books/${id}/progression`, R2Progression, { headers: { accept: "*/*" } });
        await answer(problems, `/api/v1/books/${id}`, KomgaBook);
        await call(`/api/v1/books/${id}/read-progress`, { method: "DELETE" });
      }
      expect(epubs).toBeGreaterThan(5);
      expect(problems).toEqual([]);
    }, 120_000);

    test("KOReader: push and pull of every readable book by its partial MD5; the answer fields KOReader reads", async () => {
      const problems: string[] = [];
      const reader = bearer(world.readerToken);
      expect((await server().json("PUT", "/api/v1/users/me/koreader-key", { key: "sync-key" }, reader)).status).toBe(200);
      const headers = { accept: "application/vnd.koreader.v1+json", "x-auth-user": "reader", "x-auth-key": createHash("md5").update("sync-key").digest("hex") };
      const kosync = async (method: string, path: string, body?: unknown) => {
        const response = await server().fetch(`/koreader${path}`, { method, headers: body === undefined ? headers : { ...headers, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
        const type = response.headers.get("content-type");
        if (type !== "application/json") problems.push(`${method} ${path}: content-type ${type}`);
        return { status: response.status, body: JSON.parse(await response.text()) };
      };
      const auth = await kosync("GET", "/users/auth");
      if (auth.status !== 200) problems.push(`GET /users/auth: ${auth.status}`);
      const files = [...Object.entries(COMICS).map(([target]) => join(libraryRoot(server(), "Comics"), target)), ...Object.entries(BOOKS).map(([target]) => join(libraryRoot(server(), "Books"), target))];
      for (const file of files) {
        // KOReader opens what has pages; CBR is not among its formats (MuPDF: cbz, epub, pdf).
        if (!world.readable.has(file) || /\.(rar|cbr)$/.test(file)) continue;
        const document = referencePartialMd5(new Uint8Array(readFileSync(file)));
        const reflowable = file.endsWith(".epub");
        const progress = reflowable ? "/body/DocFragment[2]/body/div/p[1]/text().0" : "1";
        const pushed = await kosync("PUT", "/syncs/progress", { document, progress, percentage: 0.1234, device: "Kobo Libra 2", device_id: "0123456789ABCDEF0123456789ABCDEF" });
        if (pushed.status !== 200) problems.push(`PUT /syncs/progress (${file}): ${pushed.status} ${JSON.stringify(pushed.body)}`);
        const pulled = await kosync("GET", `/syncs/progress/${document}`);
        if (pulled.status !== 200) problems.push(`GET /syncs/progress (${file}): ${pulled.status}`);
        check(problems, `GET /syncs/progress/${document} (${file.split("/").slice(-2).join("/")})`, KosyncProgress, pulled.body);
      }
      const unknown = await kosync("GET", `/syncs/progress/${"0".repeat(32)}`);
      if (unknown.status !== 200 || unknown.body.percentage !== undefined) problems.push(`GET /syncs/progress/<unknown>: ${unknown.status} ${JSON.stringify(unknown.body)}`);
      expect(problems).toEqual([]);
    }, 120_000);

    test("OPDS 1.2 and 2: every feed reachable from the roots; every acquisition, image and thumbnail link answers 2xx", async () => {
      const problems: string[] = [];
      const seen = new Set<string>();
      const content = new Set<string>();
      const queue = ["/opds/v1.2/catalog", "/opds/v2/catalog"];
      while (queue.length > 0 && seen.size < 400) {
        const path = queue.shift()!;
        if (seen.has(path)) continue;
        seen.add(path);
        const response = await server().fetch(path, { headers: reader });
        if (!response.ok) {
          problems.push(`GET ${path}: ${response.status}`);
          await response.body?.cancel();
          continue;
        }
        const text = await response.text();
        const hrefs = [...text.matchAll(/"href"\s*:\s*"([^"]+)"|href="([^"]+)"/g)].map((match) => (match[1] ?? match[2])!.replaceAll("&amp;", "&").replaceAll("\\/", "/"));
        for (const href of hrefs) {
          if (href.includes("{")) continue; // templates (search, PSE) are covered by tests/opds
          const url = new URL(href, server().url);
          if (url.origin !== new URL(server().url).origin) continue;
          const target = `${url.pathname}${url.search}`;
          if (/\/(file|thumbnail|cover|image)(\?|$)|\/pages\/\d+/.test(url.pathname)) content.add(target);
          else if (url.pathname.startsWith("/opds/") && !url.pathname.endsWith(".xml") && !url.pathname.includes("/search")) queue.push(target);
        }
      }
      for (const target of content) {
        const response = await server().fetch(target, { headers: reader });
        await response.body?.cancel();
        if (!response.ok) problems.push(`GET ${target}: ${response.status}`);
      }
      expect(content.size).toBeGreaterThan(world.bookIds.length);
      expect(problems).toEqual([]);
    }, 180_000);
  },
  { komga_api: { enabled: true } },
);
