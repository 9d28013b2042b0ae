/**
 * Komga's search conditions (gotson/komga: domain/model/SearchCondition.kt, SearchOperator.kt),
 * every type and operator for series and books, through POST /api/v1/{series,books}/list, with
 * the meaning Komga's jOOQ helpers give them (SeriesSearchHelper.kt, BookSearchHelper.kt,
 * SearchOperatorUtils.kt); and the requests of Komelia's default home screen and series filter
 * panel that used to answer 400 (issue 30, K1-K3, K5).
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { decode, KomgaBook, KomgaSeries, SpringPage, StringList } from "./schemas";

const today = new Date();
const recent = { Year: today.getUTCFullYear(), Month: today.getUTCMonth() + 1, Day: today.getUTCDate() };

forEachDatabase(
  "Komga search conditions",
  (server) => {
    const reader = basic("reader", PASSWORD);
    const world = { libraryId: "", bookIds: {} as Record<string, string> };

    async function post(path: string, body: unknown) {
      return server().fetch(`/komga${path}`, { method: "POST", headers: { ...reader, "content-type": "application/json" }, body: JSON.stringify(body) });
    }
    async function seriesNames(condition: unknown): Promise<string[]> {
      const response = await post("/api/v1/series/list?unpaged=true", { condition });
      expect({ condition, status: response.status }).toEqual({ condition, status: 200 });
      return decode(SpringPage(KomgaSeries), await response.json())
        .content.map((series: { name: string }) => series.name)
        .sort();
    }
    async function bookTitles(condition: unknown, query = "unpaged=true"): Promise<string[]> {
      const response = await post(`/api/v1/books/list?${query}`, { condition });
      expect({ condition, status: response.status }).toEqual({ condition, status: 200 });
      return decode(SpringPage(KomgaBook), await response.json())
        .content.map((book: { metadata: { title: string } }) => book.metadata.title)
        .sort();
    }

    let admin: Record<string, string> = {};

    beforeAll(async () => {
      const session = await adminSession(server());
      admin = bearer(session.token);
      await createUser(server(), session.token, "reader");
      const root = tempFolder();
      const info = (fields: Record<string, string | number>) => comicInfo({ LanguageISO: "en", ...fields });
      await makeCbz(join(root, "Old Times", "Old Times 01.cbz"), {
        seed: 1,
        comicInfo: info({ Series: "Old Times", Number: 1, Title: "Dawn", Year: 2001, Month: 3, Publisher: "Acme", Writer: "Ann Writer", Genre: "Action", Tags: "Space" }),
      });
      await makeCbz(join(root, "Old Times", "Old Times 02.cbz"), {
        seed: 2,
        comicInfo: info({ Series: "Old Times", Number: 2.5, Title: "Dusk", Year: 2002, Publisher: "Acme", Penciller: "Pete Pencil", Genre: "Drama" }),
      });
      await makeCbz(join(root, "Recent News", "Recent News 01.cbz"), { seed: 3, comicInfo: info({ Series: "Recent News", Number: 7, Title: "Today", ...recent, LanguageISO: "fr" }) });
      await makeCbz(join(root, "Undated", "Undated 01.cbz"), { seed: 4, comicInfo: info({ Series: "Undated", Number: 1, Title: "Whenever" }) });
      world.libraryId = (await createLibrary(server(), admin, { path: root, name: "Conditions" })).id;
      expect((await scan(server(), admin, world.libraryId)).status).toBe("completed");
    });

    test("Komelia's default home screen: 'Recently released books' (releaseDate isInTheLast PT720H) answers 200 with the books of the last 30 days", async () => {
      // Snd-R/Komelia komelia-ui/src/commonMain/kotlin/snd/komelia/ui/home/edit/DefaultFilters.kt:37
      // (allOfBooks { releaseDate { isInLast(30.days) } }, sorted byReleaseDateDesc), serialized by
      // Snd-R/komga-client src/commonMain/kotlin/snd/komga/client/search/KomgaSearchOperator.kt:125.
      const condition = { type: "AllOfBook", allOf: [{ type: "ReleaseDate", releaseDate: { operator: "isInTheLast", duration: "PT720H" } }] };
      expect(await bookTitles(condition, "unpaged=false&sort=metadata.releaseDate,desc")).toEqual(["Today"]);
      expect(await bookTitles({ releaseDate: { operator: "isNotInTheLast", duration: "P30D" } })).toEqual(["Dawn", "Dusk"]);
      expect(await seriesNames({ releaseDate: { operator: "isInTheLast", duration: "PT720H" } })).toEqual(["Recent News"]);
      // The row's sort (komga-client KomgaSort byReleaseDateDesc): newest first, undated last.
      for (const [direction, expected] of [
        ["desc", ["Today", "Dusk", "Dawn", "Whenever"]],
        ["asc", ["Dawn", "Dusk", "Today", "Whenever"]],
      ] as const) {
        const response = await post(`/api/v1/books/list?unpaged=false&sort=metadata.releaseDate,${direction}`, { condition: { allOf: [] } });
        const titles = decode(SpringPage(KomgaBook), await response.json()).content.map((book: { metadata: { title: string } }) => book.metadata.title);
        expect({ direction, titles }).toEqual({ direction, titles: [...expected] });
      }
    });

    test("Komelia's series filter panel: release-dates, and a release year as after / before", async () => {
      // Snd-R/komga-client src/commonMain/kotlin/snd/komga/client/referential/HttpReferentialClient.kt:152
      const years = await server().fetch("/komga/api/v1/series/release-dates", { headers: reader });
      expect(years.status).toBe(200);
      // The series' release years, which the series' release-date conditions match (below): not
      // 2002, the year of Old Times' second book only.
      expect(decode(StringList, await years.json())).toEqual([String(recent.Year), "2001"]);
      // Of a collection (the client's collection_id, HttpReferentialClient.kt:155): no collection has that id.
      const ofCollection = await server().fetch("/komga/api/v1/series/release-dates?collection_id=c1", { headers: reader });
      expect(await ofCollection.json()).toEqual([]);
      // Snd-R/Komelia komelia-ui/src/commonMain/kotlin/snd/komelia/ui/series/SeriesFilterState.kt:121-131:
      // after the last day of the year before, before the first day of the year after.
      const year = (value: number) => ({
        anyOf: [
          {
            allOf: [
              { releaseDate: { operator: "after", dateTime: `${value - 1}-12-31T00:00:00Z` } },
              { releaseDate: { operator: "before", dateTime: `${value + 1}-01-01T00:00:00Z` } },
            ],
          },
        ],
      });
      expect(await seriesNames(year(2001))).toEqual(["Old Times"]);
      // A series' release date is its earliest book's (Komga's aggregation).
      expect(await seriesNames(year(2002))).toEqual([]);
      expect(await bookTitles(year(2002))).toEqual(["Dusk"]);
    });

    test("series: every condition type and operator, with Komga's meaning for values Longbox does not keep", async () => {
      const all = ["Old Times", "Recent News", "Undated"];
      const cases: [unknown, string[]][] = [
        [{}, all],
        [{ allOf: [] }, all],
        [{ anyOf: [] }, all],
        [{ libraryId: { operator: "is", value: world.libraryId } }, all],
        [{ libraryId: { operator: "isNot", value: world.libraryId } }, []],
        [{ libraryId: { operator: "is", value: "not-an-id" } }, []],
        [{ collectionId: { operator: "is", value: "c1" } }, []],
        [{ collectionId: { operator: "isNot", value: "c1" } }, all],
        [{ deleted: { operator: "isFalse" } }, all],
        [{ deleted: { operator: "isTrue" } }, []],
        [{ complete: { operator: "isTrue" } }, []],
        [{ complete: { operator: "isFalse" } }, []],
        [{ oneShot: { operator: "isFalse" } }, all],
        [{ oneShot: { operator: "isTrue" } }, []],
        [{ title: { operator: "is", value: "old times" } }, ["Old Times"]],
        [{ title: { operator: "isNot", value: "old times" } }, ["Recent News", "Undated"]],
        [{ title: { operator: "contains", value: "ECEN" } }, ["Recent News"]],
        [{ title: { operator: "doesNotContain", value: "e" } }, []],
        [{ title: { operator: "beginsWith", value: "un" } }, ["Undated"]],
        [{ title: { operator: "doesNotBeginWith", value: "un" } }, ["Old Times", "Recent News"]],
        [{ title: { operator: "endsWith", value: "news" } }, ["Recent News"]],
        [{ title: { operator: "doesNotEndWith", value: "s" } }, ["Undated"]],
        [{ title: { operator: "contains", value: "%" } }, []],
        [{ titleSort: { operator: "beginsWith", value: "old" } }, ["Old Times"]],
        [{ releaseDate: { operator: "isNull" } }, ["Undated"]],
        [{ releaseDate: { operator: "isNotNull" } }, ["Old Times", "Recent News"]],
        // The UTC date of the instant: 2001-03-02T01:00+02:00 is still March 1st.
        [{ releaseDate: { operator: "before", dateTime: "2001-03-02T01:00:00+02:00" } }, []],
        [{ releaseDate: { operator: "before", dateTime: "2001-03-02T03:00:00+02:00" } }, ["Old Times"]],
        [{ releaseDate: { operator: "after", dateTime: "2001-03-01T00:00:00Z" } }, ["Recent News"]],
        [{ tag: { operator: "is", value: "SPACE" } }, ["Old Times"]],
        [{ tag: { operator: "isNot", value: "Space" } }, ["Recent News", "Undated"]],
        [{ tag: { operator: "isNull" } }, ["Recent News", "Undated"]],
        [{ tag: { operator: "isNotNull" } }, ["Old Times"]],
        [{ genre: { operator: "is", value: "drama" } }, ["Old Times"]],
        [{ genre: { operator: "isNot", value: "Drama" } }, ["Recent News", "Undated"]],
        [{ genre: { operator: "isNull" } }, ["Recent News", "Undated"]],
        [{ sharingLabel: { operator: "isNull" } }, all],
        [{ sharingLabel: { operator: "is", value: "kids" } }, []],
        [{ sharingLabel: { operator: "isNot", value: "kids" } }, all],
        [{ publisher: { operator: "is", value: "ACME" } }, ["Old Times"]],
        [{ publisher: { operator: "isNot", value: "Acme" } }, ["Recent News", "Undated"]],
        [{ language: { operator: "is", value: "FR" } }, ["Recent News"]],
        [{ language: { operator: "isNot", value: "fr" } }, ["Old Times", "Undated"]],
        // Komelia sends isNull for "None" (SeriesFilterState.kt:109-118): no Longbox series has an age rating.
        [{ anyOf: [{ ageRating: { operator: "isNull" } }, { ageRating: { operator: "is", value: 12 } }] }, all],
        [{ ageRating: { operator: "is", value: 12 } }, []],
        [{ ageRating: { operator: "isNot", value: 12 } }, all],
        [{ ageRating: { operator: "greaterThan", value: 0 } }, []],
        [{ ageRating: { operator: "lessThan", value: 99 } }, []],
        [{ ageRating: { operator: "isNotNull" } }, []],
        [{ readStatus: { operator: "is", value: "UNREAD" } }, all],
        [{ readStatus: { operator: "isNot", value: "UNREAD" } }, []],
        [{ seriesStatus: { operator: "is", value: "ONGOING" } }, all],
        [{ seriesStatus: { operator: "isNot", value: "ONGOING" } }, []],
        [{ author: { operator: "is", value: { name: "ann writer" } } }, ["Old Times"]],
        [{ author: { operator: "is", value: { role: "penciller" } } }, ["Old Times"]],
        [{ author: { operator: "isNot", value: { name: "Ann Writer", role: "writer" } } }, ["Recent News", "Undated"]],
        [{ author: { operator: "is", value: {} } }, all],
        // Nested, across fields.
        [{ anyOf: [{ genre: { operator: "is", value: "Drama" } }, { allOf: [{ language: { operator: "is", value: "fr" } }, { releaseDate: { operator: "isNotNull" } }] }] }, ["Old Times", "Recent News"]],
      ];
      for (const [condition, expected] of cases) expect({ condition, names: await seriesNames(condition) }).toEqual({ condition, names: expected });
    });

    test("books: every condition type and operator", async () => {
      const all = ["Dawn", "Dusk", "Today", "Whenever"];
      const cases: [unknown, string[]][] = [
        [{ readListId: { operator: "is", value: "r1" } }, []],
        [{ readListId: { operator: "isNot", value: "r1" } }, all],
        [{ deleted: { operator: "isFalse" } }, all],
        [{ deleted: { operator: "isTrue" } }, []],
        [{ oneShot: { operator: "isTrue" } }, []],
        [{ title: { operator: "beginsWith", value: "d" } }, ["Dawn", "Dusk"]],
        [{ title: { operator: "doesNotContain", value: "u" } }, ["Dawn", "Today", "Whenever"]],
        [{ releaseDate: { operator: "isNull" } }, ["Whenever"]],
        // 2001-12-31T21:00-02:00 is 23:00 UTC, still December 31st; after is strict.
        [{ releaseDate: { operator: "after", dateTime: "2001-12-31T21:00:00-02:00" } }, ["Dusk", "Today"]],
        [{ releaseDate: { operator: "after", dateTime: "2001-12-31T23:00:00-02:00" } }, ["Today"]],
        // Komga's greaterThan / lessThan on numbers include the bound.
        [{ numberSort: { operator: "greaterThan", value: 2.5 } }, ["Dusk", "Today"]],
        [{ numberSort: { operator: "lessThan", value: 2.5 } }, ["Dawn", "Dusk", "Whenever"]],
        [{ numberSort: { operator: "is", value: 7 } }, ["Today"]],
        [{ numberSort: { operator: "isNot", value: 1 } }, ["Dusk", "Today"]],
        [{ tag: { operator: "isNotNull" } }, ["Dawn"]],
        [{ tag: { operator: "isNot", value: "space" } }, ["Dusk", "Today", "Whenever"]],
        [{ readStatus: { operator: "is", value: "UNREAD" } }, all],
        [{ readStatus: { operator: "isNot", value: "READ" } }, all],
        [{ mediaStatus: { operator: "is", value: "READY" } }, all],
        [{ mediaStatus: { operator: "isNot", value: "READY" } }, []],
        [{ mediaStatus: { operator: "is", value: "OUTDATED" } }, []],
        [{ mediaProfile: { operator: "is", value: "DIVINA" } }, all],
        [{ mediaProfile: { operator: "is", value: "EPUB" } }, []],
        [{ mediaProfile: { operator: "isNot", value: "PDF" } }, all],
        [{ author: { operator: "is", value: { name: "Pete Pencil", role: "penciller" } } }, ["Dusk"]],
        [{ poster: { operator: "is", value: { type: "GENERATED", selected: true } } }, all],
        [{ poster: { operator: "is", value: { type: "USER_UPLOADED" } } }, []],
        [{ poster: { operator: "isNot", value: { type: "SIDECAR" } } }, all],
        [{ anyOf: [{ title: { operator: "is", value: "today" } }, { numberSort: { operator: "lessThan", value: 1 } }, { tag: { operator: "is", value: "Space" } }] }, ["Dawn", "Today", "Whenever"]],
      ];
      for (const [condition, expected] of cases) expect({ condition, titles: await bookTitles(condition) }).toEqual({ condition, titles: expected });
    });

    test("a malformed condition is a 400 that says what is wrong", async () => {
      const cases: [string, unknown, RegExp][] = [
        ["/api/v1/series/list", { numberSort: { operator: "is", value: 1 } }, /series have no condition numberSort/],
        ["/api/v1/books/list", { genre: { operator: "is", value: "x" } }, /books have no condition genre/],
        ["/api/v1/series/list", { title: { operator: "greaterThan", value: "x" } }, /greaterThan does not apply to title/],
        ["/api/v1/books/list", { releaseDate: { operator: "isInTheLast", duration: "30 days" } }, /ISO-8601 duration/],
        ["/api/v1/books/list", { releaseDate: { operator: "after", dateTime: "2001-01-01" } }, /dateTime with its offset/],
        ["/api/v1/books/list", { readStatus: { operator: "is", value: "DONE" } }, /UNREAD, IN_PROGRESS, READ/],
        ["/api/v1/series/list", { title: { operator: "is", value: "a" }, genre: { operator: "is", value: "b" } }, /several keys/],
        ["/api/v1/series/list", { anyOf: { title: { operator: "is", value: "a" } } }, /anyOf must be a list/],
      ];
      for (const [path, condition, message] of cases) {
        const response = await post(path, { condition });
        expect({ condition, status: response.status }).toEqual({ condition, status: 400 });
        expect(JSON.stringify(await response.json())).toMatch(message);
      }
    });

    test("Komelia's author filters: authors/names (search) and authors/roles", async () => {
      // Snd-R/komga-client src/commonMain/kotlin/snd/komga/client/referential/HttpReferentialClient.kt:38-48
      const names = await server().fetch("/komga/api/v1/authors/names?search=ANN", { headers: reader });
      expect(names.status).toBe(200);
      expect(decode(StringList, await names.json())).toEqual(["Ann Writer"]);
      const roles = await server().fetch("/komga/api/v1/authors/roles", { headers: reader });
      expect(roles.status).toBe(200);
      expect(decode(StringList, await roles.json())).toEqual(["penciller", "writer"]);
    });

    // Last: it changes a series. Komga's series conditions read the series' own metadata.
    test("series language and author conditions match the series' own values, which an admin may set apart from its books'", async () => {
      const listed = await server().json("GET", "/api/v1/series?pageSize=50", undefined, admin);
      const undated = (listed.body.data as { id: string; name: string }[]).find((series) => series.name === "Undated")!;
      const edited = await server().json("PATCH", `/api/v1/series/${undated.id}`, { language: "ja", authors: [{ name: "Set Author", role: "writer" }] }, admin);
      expect(edited.status).toBe(200);
      // Its book still says "en" and names no author.
      expect(await seriesNames({ language: { operator: "is", value: "JA" } })).toEqual(["Undated"]);
      expect(await seriesNames({ language: { operator: "is", value: "en" } })).toEqual(["Old Times"]);
      expect(await seriesNames({ author: { operator: "is", value: { name: "set author" } } })).toEqual(["Undated"]);
      expect(await seriesNames({ author: { operator: "is", value: { role: "writer" } } })).toEqual(["Old Times", "Undated"]);
      expect(await seriesNames({ author: { operator: "isNot", value: { name: "Set Author", role: "writer" } } })).toEqual(["Old Times", "Recent News"]);
    });
  },
  { komga_api: { enabled: true } },
);
