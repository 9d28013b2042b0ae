/**
 * Series metadata (issue 32): genres, tags, authors, age rating and language settled from the
 * series' books (all books' genres, tags and authors; the highest rating; the first book's
 * language), status and links set by an admin; edited through the series PATCH and locked
 * against scans; filtered on through series_metadata_values (the web grid, the search page, the
 * Komga API) and listed by Komga's value lists; the Komga series DTO carries them. The migration
 * that added them fills them from the books already catalogued.
 */
import { beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, PASSWORD, webSignIn } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { databaseOf, queryDatabase } from "../helpers/sql";
import { decode, KomgaSeries, SpringPage, StringList } from "../komga/schemas";
import { Database as SqliteClient } from "bun:sqlite";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { applyMigrations } from "../../src/db/migrate";

/** What the two books of Star Patrol settle on their series. */
const STAR_PATROL = {
  genres: ["Adventure", "Mystery", "Science Fiction"],
  tags: ["robots", "space"],
  authors: [
    { name: "Ann Writer", role: "writer" },
    { name: "Bo Writer", role: "writer" },
    { name: "Pat Pencil", role: "penciller" },
  ],
  ageRating: 17,
  language: "en",
  status: null,
  links: [],
};

forEachDatabase(
  "series metadata",
  (server) => {
    let admin: Record<string, string>;
    let libraryId: string;
    const ids: Record<string, string> = {};
    const reader = basic("reader", PASSWORD);

    const komga = async (path: string) => {
      const response = await server().fetch(`/komga${path}`, { headers: reader });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      return response.json();
    };
    const komgaSeriesNames = async (query: string) =>
      decode(SpringPage(KomgaSeries), await komga(`/api/v1/series?${query}&unpaged=true`))
        .content.map((series: { name: string }) => series.name)
        .sort();
    const get = async (id: string) => (await server().json("GET", `/api/v1/series/${id}`, undefined, admin)).body;

    beforeAll(async () => {
      const token = (await adminSession(server())).token;
      admin = bearer(token);
      await createUser(server(), token, "reader");
      const root = tempFolder();
      await makeCbz(join(root, "Star Patrol", "Star Patrol 01.cbz"), {
        seed: 1,
        comicInfo: comicInfo({ Series: "Star Patrol", Number: 1, Genre: "Science Fiction, Adventure", Tags: "space", Writer: "Ann Writer", Penciller: "Pat Pencil", AgeRating: "Teen", LanguageISO: "en" }),
      });
      await makeCbz(join(root, "Star Patrol", "Star Patrol 02.cbz"), {
        seed: 2,
        comicInfo: comicInfo({ Series: "Star Patrol", Number: 2, Genre: "science fiction, Mystery", Tags: "robots", Writer: "Bo Writer", AgeRating: "Mature 17+", LanguageISO: "fr" }),
      });
      await makeCbz(join(root, "Garden Tales", "Garden Tales 01.cbz"), {
        seed: 3,
        comicInfo: comicInfo({ Series: "Garden Tales", Number: 1, Genre: "Slice of Life", AgeRating: "Everyone", LanguageISO: "de" }),
      });
      // No genre, tag or rating: the book an admin gives them (below).
      await makeCbz(join(root, "Night Shift", "Night Shift 01.cbz"), { seed: 4, comicInfo: comicInfo({ Series: "Night Shift", Number: 1, Writer: "Nia Night" }) });
      libraryId = (await createLibrary(server(), admin, { name: "Meta", path: root })).id;
      expect((await scan(server(), admin, libraryId)).status).toBe("completed");
      const { body } = await server().json("GET", `/api/v1/series?libraryId=${libraryId}`, undefined, admin);
      for (const series of body.data) ids[series.name] = series.id;
    }, 120_000);

    test("the scan settles genres, tags, authors, the highest age rating and the first book's language on the series", async () => {
      expect(await get(ids["Star Patrol"]!)).toMatchObject({ ...STAR_PATROL, lockedFields: [] });
      expect(await get(ids["Garden Tales"]!)).toMatchObject({ genres: ["Slice of Life"], tags: [], ageRating: 0, language: "de" });
    });

    test("Komga: the series DTO carries them; genres, tags and age ratings are listed; series filter by genre and age rating", async () => {
      const series = decode(KomgaSeries, await komga(`/api/v1/series/${ids["Star Patrol"]}`));
      expect(series.metadata).toMatchObject({ status: "ONGOING", ageRating: 17, language: "en", genres: ["Adventure", "Mystery", "Science Fiction"], tags: ["robots", "space"], links: [] });
      expect(decode(StringList, await komga("/api/v1/genres"))).toEqual(["Adventure", "Mystery", "Science Fiction", "Slice of Life"]);
      expect(decode(StringList, await komga("/api/v1/tags"))).toEqual(["robots", "space"]);
      expect(decode(StringList, await komga("/api/v1/age-ratings"))).toEqual(["0", "17"]);
      expect(decode(StringList, await komga(`/api/v1/genres?library_id=${libraryId}&series_id=${ids["Garden Tales"]}`))).toEqual(["Slice of Life"]);
      expect(await komgaSeriesNames("genre=science%20fiction")).toEqual(["Star Patrol"]);
      expect(await komgaSeriesNames("tag=robots")).toEqual(["Star Patrol"]);
    });

    test("PATCH sets genres, tags, authors, age rating, language, status and links, locked across a deep rescan; filters follow the edit", async () => {
      const id = ids["Garden Tales"]!;
      const edit = {
        genres: ["Horticulture", "horticulture", " Cozy "],
        tags: ["plants"],
        authors: [{ name: "Greta Green", role: "writer" }],
        ageRating: 6,
        language: "en",
        status: "hiatus",
        links: [{ label: "Publisher page", url: "https://example.org/garden" }],
      };
      const patched = await server().json("PATCH", `/api/v1/series/${id}`, edit, admin);
      expect(patched.status).toBe(200);
      // Genres once each ignoring case, trimmed, sorted; the rest as sent.
      const expected = {
        ...edit,
        genres: ["Cozy", "Horticulture"],
        lockedFields: ["ageRating", "authors", "genres", "language", "links", "status", "tags"],
      };
      expect(patched.body).toMatchObject(expected);
      expect((await scan(server(), admin, libraryId, "deep")).status).toBe("completed");
      expect(await get(id)).toMatchObject(expected);

      // The filters read the edited values, not the book's.
      expect(await komgaSeriesNames("genre=Horticulture")).toEqual(["Garden Tales"]);
      expect(await komgaSeriesNames("genre=Slice%20of%20Life")).toEqual([]);
      expect(await komgaSeriesNames("status=HIATUS")).toEqual(["Garden Tales"]);
      expect(await komgaSeriesNames("status=ONGOING")).toEqual(["Night Shift", "Star Patrol"]);
      const komgaSeries = decode(KomgaSeries, await komga(`/api/v1/series/${id}`));
      expect(komgaSeries.metadata).toMatchObject({ status: "HIATUS", statusLock: true, ageRating: 6, ageRatingLock: true, genresLock: true, links: [{ label: "Publisher page", url: "https://example.org/garden" }] });
      expect(decode(StringList, await komga("/api/v1/age-ratings"))).toEqual(["6", "17"]);
    }, 120_000);

    test("book PATCH sets its genres, tags and authors, locked across a deep rescan; its series settles from them", async () => {
      const { body: books } = await server().json("GET", `/api/v1/series/${ids["Night Shift"]}/books`, undefined, admin);
      const bookId = books.data[0].id;
      const edit = { genres: ["Noir", " noir "], tags: ["city"], authors: [{ name: "Nia Night", role: "writer" }, { name: "Ink Artist", role: "inker" }] };
      const patched = await server().json("PATCH", `/api/v1/books/${bookId}`, edit, admin);
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ authors: [{ name: "Ink Artist", role: "inker" }, { name: "Nia Night", role: "writer" }] });
      const settled = { genres: ["Noir"], tags: ["city"], authors: [{ name: "Ink Artist", role: "inker" }, { name: "Nia Night", role: "writer" }], lockedFields: [] };
      expect(await get(ids["Night Shift"]!)).toMatchObject(settled);
      expect((await scan(server(), admin, libraryId, "deep")).status).toBe("completed");
      expect(await get(ids["Night Shift"]!)).toMatchObject(settled);
      expect(await komgaSeriesNames("genre=noir")).toEqual(["Night Shift"]);
      // The book's search text has the new author.
      const { body: found } = await server().json("GET", "/api/v1/books?q=ink%20artist", undefined, admin);
      expect(found.data.map((book: { id: string }) => book.id)).toEqual([bookId]);
    }, 60_000);

    test("PATCH refuses a link that is not http or https, an unknown status and a bad language tag (400), and changes nothing", async () => {
      const id = ids["Star Patrol"]!;
      const before = await get(id);
      for (const body of [
        { links: [{ label: "x", url: "javascript:alert(1)" }] },
        { links: [{ label: "x", url: "ftp://example.org/" }] },
        { status: "cancelled" },
        { language: "en us" },
        { ageRating: 120 },
      ]) {
        const refused = await server().json("PATCH", `/api/v1/series/${id}`, body, admin);
        expect({ body, status: refused.status }).toEqual({ body, status: 400 });
      }
      expect(await get(id)).toEqual(before);
    });

    test("the web grid filters by genre and tag; the search page finds a series by its genre", async () => {
      const cookie = await webSignIn(server(), "reader");
      const grid = async (query: string) => (await server().fetch(`/libraries/${libraryId}?${query}`, { headers: { cookie, "hx-request": "true" } })).text();
      const byGenre = await grid("genre=SCIENCE%20FICTION");
      expect(byGenre).toContain("Star Patrol");
      expect(byGenre).not.toContain("Garden Tales");
      expect(await grid("tag=space")).toContain("Star Patrol");
      expect(await grid("tag=nothing-has-this")).not.toContain("Star Patrol");
      const search = await (await server().fetch("/search?q=science%20fiction", { headers: { cookie } })).text();
      expect(search).toContain(`/series/${ids["Star Patrol"]}`);
    });

    // Last: it takes the database back to before the migration and applies it again.
    test("the migration fills the series' metadata and series_metadata_values from the books catalogued before it", async () => {
      const target = databaseOf(server());
      const pg = "postgresUrl" in target;
      const sql = (text: string) => queryDatabase(target, text);
      // Drizzle applies only migrations newer than the last one recorded: forget this one and
      // every later one, and undo what the later ones did, so that all of them run again.
      const journal = JSON.parse(readFileSync(join(import.meta.dir, `../../src/db/migrations/${pg ? "pg" : "sqlite"}/meta/_journal.json`), "utf8"));
      const seriesMetadata = journal.entries.find((entry: { tag: string }) => entry.tag.endsWith("_series_metadata")).when;
      await sql(`delete from ${pg ? "drizzle." : ""}__drizzle_migrations where created_at >= ${seriesMetadata}`);
      await sql("drop table series_metadata_values");
      for (const column of ["genres", "tags", "authors", "age_rating", "language", "status", "links"]) await sql(`alter table series drop column ${column}`);
      await sql("alter table users drop column locale"); // the later user_locale migration
      // A genre with a capital letter beyond ASCII, which SQLite's lower() leaves as it is.
      const patrolTwo = `(select id from books where series_id = '${ids["Star Patrol"]}' and number_sort = 2)`;
      await sql(
        pg
          ? `update books set metadata = jsonb_set(metadata, '{genres}', (metadata->'genres') || '["Épouvante"]'::jsonb) where id = ${patrolTwo}`
          : `update books set metadata = json_set(metadata, '$.genres', json_insert(json_extract(metadata, '$.genres'), '$[#]', 'Épouvante')) where id = ${patrolTwo}`,
      );
      if (pg) {
        const client = postgres(target.postgresUrl, { max: 1, onnotice: () => undefined });
        await applyMigrations({ dialect: "pg", db: drizzlePg(client) }).finally(() => client.end());
      } else {
        const client = new SqliteClient(target.sqliteFile);
        await applyMigrations({ dialect: "sqlite", db: drizzleSqlite(client) }).finally(() => client.close());
      }
      expect(await get(ids["Star Patrol"]!)).toMatchObject({ ...STAR_PATROL, genres: [...STAR_PATROL.genres, "Épouvante"] });
      const rows = await sql(`select kind, key, value, role from series_metadata_values where series_id = '${ids["Star Patrol"]}' order by kind, key, role`);
      expect(rows.filter((row) => row.value !== "Épouvante")).toEqual([
        { kind: "author", key: "ann writer", value: "Ann Writer", role: "writer" },
        { kind: "author", key: "bo writer", value: "Bo Writer", role: "writer" },
        { kind: "author", key: "pat pencil", value: "Pat Pencil", role: "penciller" },
        { kind: "genre", key: "adventure", value: "Adventure", role: "" },
        { kind: "genre", key: "mystery", value: "Mystery", role: "" },
        { kind: "genre", key: "science fiction", value: "Science Fiction", role: "" },
        { kind: "tag", key: "robots", value: "robots", role: "" },
        { kind: "tag", key: "space", value: "space", role: "" },
      ]);
      // The database's lower(): PostgreSQL's (C.UTF-8 here) lowercases the É, SQLite's does not.
      expect(rows.filter((row) => row.value === "Épouvante")).toEqual([{ kind: "genre", key: pg ? "épouvante" : "Épouvante", value: "Épouvante", role: "" }]);
      expect(await komgaSeriesNames("genre=science%20fiction")).toEqual(["Star Patrol"]);
      // Found either way, under any case, as a genre written by a scan is.
      for (const genre of ["Épouvante", "épouvante", "ÉPOUVANTE"]) expect(await komgaSeriesNames(`genre=${encodeURIComponent(genre)}`)).toEqual(["Star Patrol"]);
    });
  },
  { komga_api: { enabled: true } },
);
