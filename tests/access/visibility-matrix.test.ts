/**
 * The sharing-tag visibility rule, checked on every surface that shows catalogue content.
 *
 * One library with four series: Alpha (tag T1), Beta (T2), Gamma (untagged) and Delta (T1 and
 * T2, where deny must beat allow). Each series holds a readable book (all four are the same file,
 * so they form one hash-duplicate group) and a broken one (an empty archive: book errors, and a
 * second duplicate group). Each viewer holds different grants; `sees` is what the rule says they
 * may see. Every probe in SURFACES is run for every viewer and must answer exactly as if only the
 * visible series existed.
 *
 * Adding a surface: append a SurfaceProbe to SURFACES. `observe` asks the server as the viewer
 * and reduces the answer to something comparable (sorted ids, counts, statuses); `expected`
 * computes the same thing from the series the viewer may see, using the ids in `world`.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { scannedLibrary } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { parseFeed } from "../opds/support";

type SeriesKey = "Alpha" | "Beta" | "Gamma" | "Delta";
type TagKey = "T1" | "T2";
const ALL: SeriesKey[] = ["Alpha", "Beta", "Gamma", "Delta"];
const SERIES_TAGS: Record<SeriesKey, TagKey[]> = { Alpha: ["T1"], Beta: ["T2"], Gamma: [], Delta: ["T1", "T2"] };
const READABLE = "cbz/comicbox/macos_resource_fork.cbz";
const BROKEN = "cbz/kavita/empty.zip";

interface SeriesInWorld {
  id: string;
  readableBookId: string;
  brokenBookId: string;
}

interface World {
  libraryId: string;
  series: Record<SeriesKey, SeriesInWorld>;
  /** The error types the broken archive produces (as the admin sees them). */
  errorTypes: string[];
  /** An admin's shared collection of every series, and read list of every readable book (issue 33). */
  collectionId: string;
  readListId: string;
}

interface Viewer {
  name: string;
  role: "admin" | "user";
  /** Grants as given through the API, in this order (PUT upserts: one grant per tag). */
  grants: [TagKey, "allow" | "deny"][];
  sees: SeriesKey[];
  /** The viewer's credentials, set in beforeAll. */
  headers: Record<string, string>;
}

const VIEWER_SPECS: Omit<Viewer, "headers">[] = [
  { name: "a user without grants", role: "user", grants: [], sees: ALL },
  { name: "a user allowed T1", role: "user", grants: [["T1", "allow"]], sees: ["Alpha", "Delta"] },
  { name: "a user denied T1", role: "user", grants: [["T1", "deny"]], sees: ["Beta", "Gamma"] },
  // The same tag cannot be both: the later PUT replaces the allow grant with a deny grant.
  { name: "a user allowed then denied T1", role: "user", grants: [["T1", "allow"], ["T1", "deny"]], sees: ["Beta", "Gamma"] },
  // Delta carries both tags: deny beats allow.
  { name: "a user allowed T1 and denied T2", role: "user", grants: [["T1", "allow"], ["T2", "deny"]], sees: ["Alpha"] },
  { name: "an admin with a deny grant", role: "admin", grants: [["T1", "deny"]], sees: ALL },
];
const VIEWERS: Viewer[] = VIEWER_SPECS.map((spec) => ({ ...spec, headers: {} }));

interface SurfaceProbe {
  surface: string;
  observe(server: TestServer, viewer: Viewer, world: World): Promise<unknown>;
  expected(visible: SeriesInWorld[], world: World): unknown;
}

const sorted = (ids: string[]) => [...ids].sort();
const bookIdsOf = (series: SeriesInWorld[]) => sorted(series.flatMap((s) => [s.readableBookId, s.brokenBookId]));
const allBooks = (world: World) => bookIdsOf(Object.values(world.series));

async function answer(server: TestServer, viewer: Viewer, path: string) {
  const { status, body } = await server.json("GET", path, undefined, viewer.headers);
  if (status !== 200) throw new Error(`GET ${path} as ${viewer.name}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Ids of an OPDS 1.2 feed's entries (`urn:uuid:<id>`), sorted, and its total. */
async function atomFeedIds(server: TestServer, viewer: Viewer, path: string) {
  const feed = parseFeed(await answer(server, viewer, path));
  return { ids: sorted((feed.entry ?? []).map((entry) => entry.id.replace("urn:uuid:", ""))), total: Number(feed["opensearch:totalResults"]) };
}

/** Ids at the end of an OPDS 2 feed's navigation hrefs or in its publications' identifiers, sorted, and its total. */
async function opds2FeedIds(server: TestServer, viewer: Viewer, path: string) {
  const feed = await answer(server, viewer, path);
  const ids = [
    ...(feed.navigation ?? []).flatMap((link: { href: string }) => (link.href.includes("/series/") ? [link.href.split("/").pop()!] : [])),
    ...(feed.publications ?? []).map((publication: { metadata: { identifier: string } }) => publication.metadata.identifier.replace("urn:uuid:", "")),
  ];
  return { ids: sorted(ids), total: feed.metadata.numberOfItems };
}

const seriesIdsOf = (series: SeriesInWorld[]) => ({ ids: sorted(series.map((s) => s.id)), total: series.length });
const booksWithTotal = (series: SeriesInWorld[]) => ({ ids: bookIdsOf(series), total: series.length * 2 });

const SURFACES: SurfaceProbe[] = [
  {
    surface: "GET /api/v1/books (list and total)",
    async observe(server, viewer, world) {
      const body = await answer(server, viewer, `/api/v1/books?libraryId=${world.libraryId}&pageSize=500`);
      return { ids: sorted(body.data.map((book: { id: string }) => book.id)), total: body.total };
    },
    expected: (visible) => ({ ids: bookIdsOf(visible), total: visible.length * 2 }),
  },
  {
    surface: "GET /api/v1/books/{id} (404 when hidden)",
    async observe(server, viewer, world) {
      const statuses: Record<string, number> = {};
      for (const id of allBooks(world)) statuses[id] = (await server.json("GET", `/api/v1/books/${id}`, undefined, viewer.headers)).status;
      return statuses;
    },
    expected(visible, world) {
      const shown = new Set(bookIdsOf(visible));
      return Object.fromEntries(allBooks(world).map((id) => [id, shown.has(id) ? 200 : 404]));
    },
  },
  {
    surface: "GET /api/v1/books/errors (counts and entries)",
    async observe(server, viewer, world) {
      const body = await answer(server, viewer, `/api/v1/books/errors?libraryId=${world.libraryId}&pageSize=500`);
      return {
        totalBooksWithErrors: body.totalBooksWithErrors,
        groups: body.groups.map((group: { errorType: string; count: number; books: { total: number; data: { book: { id: string } }[] } }) => ({
          errorType: group.errorType,
          count: group.count,
          total: group.books.total,
          ids: sorted(group.books.data.map((entry) => entry.book.id)),
        })),
      };
    },
    expected(visible, world) {
      const broken = sorted(visible.map((s) => s.brokenBookId));
      const groups = broken.length === 0 ? [] : world.errorTypes.map((errorType) => ({ errorType, count: broken.length, total: broken.length, ids: broken }));
      return { totalBooksWithErrors: broken.length, groups };
    },
  },
  {
    surface: "GET /api/v1/duplicates (groups of two or more visible books)",
    async observe(server, viewer) {
      const body = await answer(server, viewer, "/api/v1/duplicates");
      const groups = body.groups.map((group: { books: { id: string }[] }) => sorted(group.books.map((book) => book.id)));
      return { groups: groups.sort(), totalGroups: body.totalGroups, totalDuplicateBooks: body.totalDuplicateBooks };
    },
    expected(visible) {
      const groups = visible.length < 2 ? [] : [sorted(visible.map((s) => s.readableBookId)), sorted(visible.map((s) => s.brokenBookId))];
      return { groups: groups.sort(), totalGroups: groups.length, totalDuplicateBooks: groups.flat().length };
    },
  },
  {
    surface: "POST /api/v1/duplicates/scan (counts of the groups the caller can see)",
    async observe(server, viewer) {
      const { status, body } = await server.json("POST", "/api/v1/duplicates/scan", undefined, viewer.headers);
      return { status, hashGroups: body.hashGroups, metadataGroups: body.metadataGroups };
    },
    expected: (visible) => ({ status: 202, hashGroups: visible.length < 2 ? 0 : 2, metadataGroups: 0 }),
  },
  {
    surface: "GET /api/v1/libraries (series and book counts)",
    async observe(server, viewer, world) {
      const libraries: { id: string; seriesCount: number; bookCount: number }[] = await answer(server, viewer, "/api/v1/libraries");
      const library = libraries.find((candidate) => candidate.id === world.libraryId);
      return { seriesCount: library?.seriesCount, bookCount: library?.bookCount };
    },
    expected: (visible) => ({ seriesCount: visible.length, bookCount: visible.length * 2 }),
  },
  {
    surface: "GET /api/v1/libraries/{id} (series and book counts)",
    async observe(server, viewer, world) {
      const library = await answer(server, viewer, `/api/v1/libraries/${world.libraryId}`);
      return { seriesCount: library.seriesCount, bookCount: library.bookCount };
    },
    expected: (visible) => ({ seriesCount: visible.length, bookCount: visible.length * 2 }),
  },
  {
    surface: "OPDS 1.2 all series",
    observe: (server, viewer) => atomFeedIds(server, viewer, "/opds/v1.2/series?pageSize=500"),
    expected: seriesIdsOf,
  },
  {
    surface: "OPDS 1.2 library navigation",
    observe: (server, viewer, world) => atomFeedIds(server, viewer, `/opds/v1.2/libraries/${world.libraryId}?pageSize=500`),
    expected: seriesIdsOf,
  },
  {
    surface: "OPDS 1.2 series acquisition feeds (404 when hidden)",
    async observe(server, viewer, world) {
      const answers: Record<string, unknown> = {};
      for (const series of Object.values(world.series)) {
        const response = await server.fetch(`/opds/v1.2/series/${series.id}`, { headers: viewer.headers });
        answers[series.id] = response.status === 200 ? (await atomFeedIds(server, viewer, `/opds/v1.2/series/${series.id}`)).ids : response.status;
      }
      return answers;
    },
    expected(visible, world) {
      const shown = new Set(visible.map((s) => s.id));
      return Object.fromEntries(Object.values(world.series).map((s) => [s.id, shown.has(s.id) ? bookIdsOf([s]) : 404]));
    },
  },
  {
    surface: "OPDS 1.2 recently added",
    observe: (server, viewer) => atomFeedIds(server, viewer, "/opds/v1.2/recent?pageSize=500"),
    expected: booksWithTotal,
  },
  {
    surface: "OPDS 1.2 search",
    observe: (server, viewer) => atomFeedIds(server, viewer, "/opds/v1.2/search?q=00&pageSize=500"),
    expected: booksWithTotal,
  },
  {
    surface: "OPDS 1.2 page streaming and the acquisition link's file (404 when hidden)",
    async observe(server, viewer, world) {
      const statuses: Record<string, number[]> = {};
      for (const series of Object.values(world.series)) {
        const page = await server.fetch(`/opds/v1.2/books/${series.readableBookId}/pages/0`, { headers: viewer.headers });
        const file = await server.fetch(`/api/v1/books/${series.readableBookId}/file`, { headers: viewer.headers });
        statuses[series.readableBookId] = [page.status, file.status];
      }
      return statuses;
    },
    expected(visible, world) {
      const shown = new Set(visible.map((s) => s.id));
      return Object.fromEntries(Object.values(world.series).map((s) => [s.readableBookId, shown.has(s.id) ? [200, 200] : [404, 404]]));
    },
  },
  {
    surface: "OPDS 2 all series",
    observe: (server, viewer) => opds2FeedIds(server, viewer, "/opds/v2/series?pageSize=500"),
    expected: seriesIdsOf,
  },
  {
    surface: "OPDS 2 recently added",
    observe: (server, viewer) => opds2FeedIds(server, viewer, "/opds/v2/recent?pageSize=500"),
    expected: booksWithTotal,
  },
  {
    surface: "OPDS 2 search",
    observe: (server, viewer) => opds2FeedIds(server, viewer, "/opds/v2/search?q=00&pageSize=500"),
    expected: booksWithTotal,
  },
  {
    surface: "GET /api/v1/series (list and total)",
    async observe(server, viewer, world) {
      const body = await answer(server, viewer, `/api/v1/series?libraryId=${world.libraryId}&pageSize=500`);
      return { ids: sorted(body.data.map((series: { id: string }) => series.id)), total: body.total };
    },
    expected: (visible) => ({ ids: sorted(visible.map((s) => s.id)), total: visible.length }),
  },
  {
    surface: "series reads: GET /api/v1/series/{id}, its books and its thumbnail (404 when hidden)",
    async observe(server, viewer, world) {
      const statuses: Record<string, number[]> = {};
      for (const series of Object.values(world.series)) {
        statuses[series.id] = [];
        for (const path of ["", "/books", "/thumbnail"]) {
          statuses[series.id]!.push(await statusOf(server, viewer, `/api/v1/series/${series.id}${path}`));
        }
      }
      return statuses;
    },
    expected(visible, world) {
      const shown = new Set(visible.map((s) => s.id));
      return Object.fromEntries(Object.values(world.series).map((s) => [s.id, shown.has(s.id) ? [200, 200, 200] : [404, 404, 404]]));
    },
  },
  {
    surface: "book content: pages list, page 1, the file, the thumbnail, progress (404 when hidden)",
    async observe(server, viewer, world) {
      const statuses: Record<string, number[]> = {};
      for (const series of Object.values(world.series)) {
        const id = series.readableBookId;
        statuses[id] = [
          await statusOf(server, viewer, `/api/v1/books/${id}/pages`),
          await statusOf(server, viewer, `/api/v1/books/${id}/pages/1`),
          await statusOf(server, viewer, `/api/v1/books/${id}/file`),
          await statusOf(server, viewer, `/api/v1/books/${id}/thumbnail`),
          await statusOf(server, viewer, `/api/v1/books/${id}/progress`, { method: "PUT", body: JSON.stringify({ page: 1 }) }),
        ];
      }
      return statuses;
    },
    expected(visible, world) {
      const shown = new Set(visible.map((s) => s.readableBookId));
      return Object.fromEntries(
        Object.values(world.series).map((s) => [s.readableBookId, shown.has(s.readableBookId) ? [200, 200, 200, 200, 200] : [404, 404, 404, 404, 404]]),
      );
    },
  },
  {
    surface: "lists: an admin's collection and read list (REST items, counts, next; OPDS 1.2 and 2)",
    async observe(server, viewer, world) {
      const collection = await answer(server, viewer, `/api/v1/collections/${world.collectionId}/series?pageSize=500`);
      const readList = await answer(server, viewer, `/api/v1/readlists/${world.readListId}/books?pageSize=500`);
      const readListIds: string[] = readList.data.map((book: { id: string }) => book.id);
      const next: (string | number)[] = [];
      for (const id of readListIds) {
        const answered = await server.json("GET", `/api/v1/readlists/${world.readListId}/books/${id}/next`, undefined, viewer.headers);
        next.push(answered.status === 200 ? answered.body.id : answered.status);
      }
      return {
        collection: { ids: sorted(collection.data.map((series: { id: string }) => series.id)), total: collection.total },
        seriesCount: (await answer(server, viewer, `/api/v1/collections/${world.collectionId}`)).seriesCount,
        readList: readListIds,
        bookCount: (await answer(server, viewer, `/api/v1/readlists/${world.readListId}`)).bookCount,
        next,
        opds: (await atomFeedIds(server, viewer, `/opds/v1.2/readlists/${world.readListId}`)).ids,
        opds2: (await opds2FeedIds(server, viewer, `/opds/v2/collections/${world.collectionId}`)).ids,
      };
    },
    expected(visible) {
      const books = visible.map((series) => series.readableBookId);
      return {
        collection: seriesIdsOf(visible),
        seriesCount: visible.length,
        readList: books,
        bookCount: books.length,
        next: [...books.slice(1), 404],
        opds: sorted(books),
        opds2: seriesIdsOf(visible).ids,
      };
    },
  },
];

/** The status of a request as the viewer (the body is read and dropped). */
async function statusOf(server: TestServer, viewer: Viewer, path: string, init: RequestInit = {}): Promise<number> {
  const response = await server.fetch(path, {
    ...init,
    headers: { ...viewer.headers, ...(init.body ? { "content-type": "application/json" } : {}) },
  });
  await response.arrayBuffer();
  return response.status;
}

forEachDatabase("Sharing-tag visibility on every surface", (server) => {
  const world = {} as World;

  beforeAll(async () => {
    const adminToken = (await adminSession(server())).token;
    const admin = bearer(adminToken);
    const layout: Record<string, string> = {};
    for (const key of ALL) {
      layout[`${key}/${key} 001.cbz`] = READABLE;
      layout[`${key}/${key} 002.cbz`] = BROKEN;
    }
    world.libraryId = await scannedLibrary(server(), adminToken, "Shared", layout);
    expect((await server().json("POST", "/api/v1/duplicates/scan", undefined, admin)).status).toBe(202);

    const books = (await server().json("GET", `/api/v1/books?libraryId=${world.libraryId}&pageSize=500`, undefined, admin)).body.data;
    world.series = {} as World["series"];
    for (const key of ALL) {
      const of = (file: string) => books.find((book: { filePath: string }) => book.filePath.endsWith(`${key}/${key} ${file}.cbz`));
      world.series[key] = { id: of("001").seriesId, readableBookId: of("001").id, brokenBookId: of("002").id };
    }

    const errors = (await server().json("GET", `/api/v1/books/errors?libraryId=${world.libraryId}`, undefined, admin)).body;
    world.errorTypes = errors.groups.map((group: { errorType: string }) => group.errorType);

    const tagIds = {} as Record<TagKey, string>;
    for (const tag of ["T1", "T2"] as const) {
      tagIds[tag] = (await server().json("POST", "/api/v1/sharing-tags", { name: tag }, admin)).body.id;
    }
    for (const key of ALL) {
      const set = await server().json("PUT", `/api/v1/series/${world.series[key].id}/sharing-tags`, { sharingTagIds: SERIES_TAGS[key].map((tag) => tagIds[tag]) }, admin);
      expect(set.status).toBe(200);
    }
    const lists = { seriesIds: ALL.map((key) => world.series[key].id), bookIds: ALL.map((key) => world.series[key].readableBookId) };
    world.collectionId = (await server().json("POST", "/api/v1/collections", { name: "Everything", seriesIds: lists.seriesIds }, admin)).body.id;
    world.readListId = (await server().json("POST", "/api/v1/readlists", { name: "Every readable book", bookIds: lists.bookIds }, admin)).body.id;
    for (const [index, viewer] of VIEWERS.entries()) {
      const username = `viewer${index}`;
      const userId = await createUser(server(), adminToken, username, viewer.role);
      for (const [tag, accessMode] of viewer.grants) {
        const granted = await server().json("PUT", `/api/v1/users/${userId}/sharing-tags`, { sharingTagId: tagIds[tag], accessMode }, admin);
        expect(granted.status).toBe(200);
      }
      viewer.headers = bearer((await login(server(), username)).token);
    }
  });

  test("the fixture library is as the matrix assumes: only the 002 books carry errors, both duplicate groups exist", async () => {
    const admin = VIEWERS.find((viewer) => viewer.role === "admin")!;
    const errors = await answer(server(), admin, `/api/v1/books/errors?libraryId=${world.libraryId}&pageSize=500`);
    expect(world.errorTypes.length).toBeGreaterThan(0);
    expect(errors.totalBooksWithErrors).toBe(ALL.length);
    expect((await answer(server(), admin, "/api/v1/duplicates")).totalGroups).toBe(2);
  });

  for (const probe of SURFACES) {
    describe(probe.surface, () => {
      for (const viewer of VIEWERS) {
        test(`${viewer.name} sees ${viewer.sees.join(", ") || "nothing"}`, async () => {
          const visible = viewer.sees.map((key) => world.series[key]);
          expect(await probe.observe(server(), viewer, world)).toEqual(probe.expected(visible, world) as never);
        });
      }
    });
  }
});
