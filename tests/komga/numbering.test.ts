/**
 * Books without a number are numbered by their position in their series (issue 30, M3), as
 * Komga numbers them, so that Mihon's chapter list and tracker have an order and a count:
 * - keiyoushi/extensions-source src/all/komga/src/eu/kanade/tachiyomi/extension/all/komga/Komga.kt:212
 *   asks `<series>/books?unpaged=true&media_status=READY&deleted=false`, and :244 takes the
 *   chapter number from `metadata.numberSort` (dto/Dto.kt:159, a non-null Float);
 * - mihonapp/mihon app/src/main/java/eu/kanade/tachiyomi/data/track/komga/KomgaApi.kt:54,69,75
 *   reads `maxNumberSort` as the chapter count and `lastReadContinuousNumberSort` as the last
 *   read, and :91 PUTs `lastBookNumberSortRead` (KomgaModels.kt:68).
 * A number from metadata wins.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { decode, KomgaBook, SpringPage, TachiyomiProgressV2 } from "./schemas";

const MIHON = { "user-agent": "TachiyomiKomga/1.4.50" };

forEachDatabase(
  "Komga numbering of unnumbered books",
  (server) => {
    const reader = { ...MIHON, ...basic("reader", PASSWORD) };
    let seriesId = "";

    beforeAll(async () => {
      const session = await adminSession(server());
      const admin = bearer(session.token);
      await createUser(server(), session.token, "reader");
      const root = tempFolder();
      const folder = join(root, "Short Stories");
      // No digits in the names, no number in the metadata: only the order names them.
      await makeCbz(join(folder, "gamma tale.cbz"), { pages: 2, seed: 1, comicInfo: comicInfo({ Series: "Short Stories", Title: "Gamma" }) });
      await makeCbz(join(folder, "Alpha tale.cbz"), { pages: 2, seed: 2, comicInfo: comicInfo({ Series: "Short Stories", Title: "Alpha" }) });
      await makeCbz(join(folder, "beta tale.cbz"), { pages: 2, seed: 3, comicInfo: comicInfo({ Series: "Short Stories", Title: "Beta" }) });
      // A number from the metadata wins, and comes first in the series' order.
      await makeCbz(join(folder, "prologue.cbz"), { pages: 2, seed: 4, comicInfo: comicInfo({ Series: "Short Stories", Title: "Prologue", Number: "0.5" }) });
      const libraryId = (await createLibrary(server(), admin, { path: root, name: "Stories" })).id;
      expect((await scan(server(), admin, libraryId)).status).toBe("completed");
      const listed = (await server().json("GET", "/api/v1/series?pageSize=50", undefined, admin)).body.data as { id: string; name: string }[];
      seriesId = listed.find((series) => series.name === "Short Stories")!.id;
    });

    const get = (path: string) => server().fetch(`/komga${path}`, { headers: reader });

    test("the chapter list: numberSort and number are the position in the series when the book has none", async () => {
      const response = await get(`/api/v1/series/${seriesId}/books?unpaged=true&media_status=READY&deleted=false`);
      expect(response.status).toBe(200);
      const books = decode(SpringPage(KomgaBook), await response.json()).content as { name: string; number: number; metadata: { number: string; numberSort: number } }[];
      expect(books.map((book) => [book.name, book.metadata.number, book.metadata.numberSort, book.number])).toEqual([
        ["Prologue", "0.5", 0.5, 0],
        ["Alpha", "2", 2, 2],
        ["Beta", "3", 3, 3],
        ["Gamma", "4", 4, 4],
      ]);
      // One book alone, and in a list of books of any series, says the same.
      const gamma = (await (await get(`/api/v1/books/${(books[3] as unknown as { id: string }).id}`)).json()) as { metadata: { numberSort: number } };
      expect(gamma.metadata.numberSort).toBe(4);
    });

    /** The names and numberSorts of a page of books, as listed. */
    const named = async (response: Response) => {
      expect(response.status).toBe(200);
      const page = decode(SpringPage(KomgaBook), await response.json()).content as { name: string; metadata: { numberSort: number } }[];
      return page.map((book) => [book.name, book.metadata.numberSort]);
    };
    const inOrder = [
      ["Prologue", 0.5],
      ["Alpha", 2],
      ["Beta", 3],
      ["Gamma", 4],
    ];

    test("sorting by numberSort uses the number shown: unnumbered books sort by their position, both ways", async () => {
      expect(await named(await get(`/api/v1/series/${seriesId}/books?sort=metadata.numberSort,desc`))).toEqual(inOrder.toReversed());
      expect(await named(await get(`/api/v1/books?series_id=${seriesId}&sort=metadata.numberSort,desc`))).toEqual(inOrder.toReversed());
      expect(await named(await get(`/api/v1/books?series_id=${seriesId}&sort=metadata.numberSort,asc`))).toEqual(inOrder);
    });

    test("numberSort conditions match the number shown: an unnumbered book by its position", async () => {
      const search = (condition: unknown) =>
        server().fetch("/komga/api/v1/books/list?sort=metadata.numberSort,asc", {
          method: "POST",
          headers: { ...reader, "content-type": "application/json" },
          body: JSON.stringify({ condition: { allOf: [{ seriesId: { operator: "is", value: seriesId } }, condition] } }),
        });
      expect(await named(await search({ numberSort: { operator: "greaterThan", value: 3 } }))).toEqual(inOrder.slice(2));
      expect(await named(await search({ numberSort: { operator: "lessThan", value: 2 } }))).toEqual(inOrder.slice(0, 2));
      expect(await named(await search({ numberSort: { operator: "is", value: 3 } }))).toEqual([["Beta", 3]]);
      expect(await named(await search({ numberSort: { operator: "isNot", value: 3 } }))).toEqual(inOrder.filter(([name]) => name !== "Beta"));
    });

    test("the tracker: maxNumberSort counts the books, and PUT marks read up to a position", async () => {
      const path = `/api/v2/series/${seriesId}/read-progress/tachiyomi`;
      const before = decode(TachiyomiProgressV2, await (await get(path)).json());
      expect(before).toMatchObject({ booksCount: 4, maxNumberSort: 4, lastReadContinuousNumberSort: 0 });
      const put = await server().fetch(`/komga${path}`, { method: "PUT", headers: { ...reader, "content-type": "application/json" }, body: JSON.stringify({ lastBookNumberSortRead: 3 }) });
      expect(put.status).toBe(204);
      const after = decode(TachiyomiProgressV2, await (await get(path)).json());
      expect(after).toMatchObject({ booksReadCount: 3, lastReadContinuousNumberSort: 3, maxNumberSort: 4 });
    });
  },
  { komga_api: { enabled: true } },
);
