/**
 * The values the web catalogue's filter lists offer (src/library/catalogue-metadata.ts) over HTTP
 * on each database: a library's page, which lists series, offers the series' own values (a
 * series' publisher, language and year are its first book's; its genres and authors what its
 * books say together), and a series' page, which lists books, its books' values. Every value
 * offered finds something when picked; the values of a series' later books that the series
 * does not hold are not offered where series are filtered. The Komga API's lists say the same.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer, webSignIn } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

/** Each series' books: the ComicInfo fields that differ between them. */
const SERIES: Record<string, Record<string, string | number>[]> = {
  Mixed: [
    { Publisher: "Alpha", LanguageISO: "en", Year: 2001, Genre: "Action", Writer: "Ann", Tags: "early" },
    { Publisher: "Beta", LanguageISO: "fr", Year: 2005, Genre: "Drama", Writer: "Bob", Tags: "late" },
  ],
  Plain: [{ Publisher: "Gamma", LanguageISO: "de", Year: 2010, Genre: "Fun", Writer: "Cat", Tags: "solo" }],
};

/** The card titles of a grid page, sorted. */
const titles = (html: string) => [...html.matchAll(/class="card-title">([^<]*)</g)].map((match) => match[1]!).sort();

/** The values a filter select of the page offers (its "any" option left out). */
function offered(html: string, name: string): string[] {
  const select = new RegExp(`<select id="filter-${name}" name="${name}">([\\s\\S]*?)</select>`).exec(html);
  if (!select) throw new Error(`no ${name} filter on the page`);
  return [...select[1]!.matchAll(/<option value="([^"]+)"/g)].map((match) => match[1]!);
}

forEachDatabase(
  "filter values",
  (server) => {
  let cookie: string;
  let admin: Record<string, string>;
  let libraryId: string;
  const seriesIds: Record<string, string> = {};

  const html = async (path: string) => {
    const response = await server().fetch(path, { headers: { cookie } });
    expect(response.status).toBe(200);
    return response.text();
  };

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    let seed = 900;
    for (const [name, books] of Object.entries(SERIES)) {
      for (const [index, fields] of books.entries()) {
        const info = comicInfo({ Series: name, Number: index + 1, Title: `${name} ${index + 1}`, ...fields });
        await makeCbz(join(root, name, `${name} ${index + 1}.cbz`), { seed: seed++, comicInfo: info });
      }
    }
    libraryId = (await createLibrary(server(), admin, { name: "Facets", path: root })).id;
    expect((await scan(server(), admin, libraryId)).status).toBe("completed");
    const series = await server().json("GET", `/api/v1/series?libraryId=${libraryId}&pageSize=50`, undefined, admin);
    for (const entry of series.body.data as { id: string; name: string }[]) seriesIds[entry.name] = entry.id;
    cookie = await webSignIn(server(), "admin");
  }, 60_000);

  test("a library's page offers the series' own values, each of which finds a series", async () => {
    const page = await html(`/libraries/${libraryId}`);
    const expected = { publisher: ["Alpha", "Gamma"], language: ["de", "en"], genre: ["Action", "Drama", "Fun"], tag: ["early", "late", "solo"], author: ["Ann", "Bob", "Cat"] };
    for (const [name, values] of Object.entries(expected)) {
      expect({ name, values: offered(page, name) }).toEqual({ name, values });
      for (const value of values) {
        const found = titles(await html(`/libraries/${libraryId}?${name}=${encodeURIComponent(value)}`));
        expect({ name, value, found: found.length > 0 }).toEqual({ name, value, found: true });
      }
    }
    // Beta and fr are only Mixed's second book's: a series filter by them finds no series.
    expect(titles(await html(`/libraries/${libraryId}?publisher=Beta`))).toEqual([]);
    expect(titles(await html(`/libraries/${libraryId}?language=fr`))).toEqual([]);
  });

  test("a series' page offers its books' values, each of which finds a book of it", async () => {
    const page = await html(`/series/${seriesIds.Mixed}`);
    const expected = { language: ["en", "fr"], genre: ["Action", "Drama"], tag: ["early", "late"], author: ["Ann", "Bob"] };
    for (const [name, values] of Object.entries(expected)) {
      expect({ name, values: offered(page, name) }).toEqual({ name, values });
    }
    expect(titles(await html(`/series/${seriesIds.Mixed}?language=fr`))).toEqual(["Mixed 2"]);
    expect(titles(await html(`/series/${seriesIds.Mixed}?genre=Action`))).toEqual(["Mixed 1"]);
    expect(titles(await html(`/series/${seriesIds.Mixed}?tag=late`))).toEqual(["Mixed 2"]);
    expect(titles(await html(`/series/${seriesIds.Mixed}?author=Bob`))).toEqual(["Mixed 2"]);
  });

  test("the Komga API's value lists are the series' own; its book tags the books'", async () => {
    const komga = async (path: string) => (await server().json("GET", `/komga${path}`, undefined, admin)).body;
    expect(await komga(`/api/v1/publishers?library_id=${libraryId}`)).toEqual(["Alpha", "Gamma"]);
    expect(await komga(`/api/v1/languages?library_id=${libraryId}`)).toEqual(["de", "en"]);
    expect(await komga(`/api/v1/series/release-dates?library_id=${libraryId}`)).toEqual(["2010", "2001"]);
    expect(await komga(`/api/v1/tags/book?series_id=${seriesIds.Mixed}`)).toEqual(["early", "late"]);
    expect(await komga(`/api/v1/tags/series?series_id=${seriesIds.Plain}`)).toEqual(["solo"]);
  });
  },
  { komga_api: { enabled: true } },
);
