import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { comicInfo, createLibrary, libraryRoot, makeCbz } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { bearer, hideSeriesFrom, scan, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Captain Science/Captain Science #002.cbz": "cbz/kavita/sorting.zip",
  "Extras/Extras Part A.cbz": "cbz/kavita/ComicInfo2.zip",
  "Extras/Extras Part B.cbz": "cbz/kavita/Umlaut.zip",
  "Extras/Extras Part C.cbz": "cbz/kavita/ComicInfo_authors.zip",
  "Documents/komga.pdf": "pdf/komga/komga.pdf",
  "Novels/book.epub": "epub/stump/book.epub",
};

forEachDatabase("Series and book lists, edits and locks", (server) => {
  let library: ScannedLibrary;
  let admin: Record<string, string>;
  let reader: Record<string, string>;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
    admin = bearer(library.adminToken);
    reader = bearer(library.readerToken);
  });
  const get = (path: string, headers: Record<string, string>) => server().json("GET", path, undefined, headers);
  const book = (name: string) => {
    const found = library.books[name];
    if (!found) throw new Error(`${name} was not catalogued: ${Object.keys(library.books).join(", ")}`);
    return found;
  };

  test("series list: paged, with counts, effective direction and the caller's read count", async () => {
    const captain = book("Captain Science #001.cbz");
    const progress = await server().json("PUT", `/api/v1/books/${captain.id}/progress`, { completed: true }, reader);
    expect(progress.status).toBe(200);
    const list = await get(`/api/v1/series?libraryId=${library.libraryId}&pageSize=2`, reader);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(4);
    expect(list.body.totalPages).toBe(2);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.links.next).toContain("page=2");
    const all = await get(`/api/v1/series?libraryId=${library.libraryId}`, reader);
    const series = all.body.data.find((entry: { id: string }) => entry.id === captain.seriesId);
    expect(series).toMatchObject({
      libraryId: library.libraryId,
      libraryName: "Reading",
      name: "Captain Science",
      readingDirection: "ltr",
      bookCount: 2,
      booksReadCount: 1,
      booksInProgressCount: 0,
      booksUnreadCount: 1,
      lockedFields: [],
      hasCustomCover: false,
    });
    // Progress is per user: the admin has read nothing.
    const asAdmin = await get(`/api/v1/series/${captain.seriesId}`, admin);
    expect(asAdmin.body.booksReadCount).toBe(0);
    // Names are in name order.
    const names = all.body.data.map((entry: { name: string }) => entry.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())));
  });

  test("series q search, sort, and bad parameters", async () => {
    const found = await get("/api/v1/series?q=capTAIN", reader);
    expect(found.body.data.map((entry: { name: string }) => entry.name)).toEqual(["Captain Science"]);
    expect((await get("/api/v1/series?q=%25", reader)).body.total).toBe(0);
    const descending = await get("/api/v1/series?sort=name,desc", reader);
    const names = descending.body.data.map((entry: { nameSort: string }) => entry.nameSort);
    expect(names).toEqual([...names].sort().reverse());
    for (const query of ["sort=colour,asc", "sort=name,sideways", "pageSize=501", "libraryId=nope"]) {
      const response = await get(`/api/v1/series?${query}`, reader);
      expect({ query, status: response.status, error: response.body.error }).toEqual({ query, status: 400, error: "BadRequest" });
    }
  });

  test("series endpoints need credentials, PATCH needs an admin, unknown ids are 404", async () => {
    const seriesId = book("komga.pdf").seriesId;
    expect((await get("/api/v1/series", {})).status).toBe(401);
    expect((await get(`/api/v1/series/${seriesId}`, {})).status).toBe(401);
    expect((await server().json("PATCH", `/api/v1/series/${seriesId}`, { name: "x" }, reader)).status).toBe(403);
    expect((await get(`/api/v1/series/${crypto.randomUUID()}`, reader)).status).toBe(404);
    expect((await get(`/api/v1/series/${crypto.randomUUID()}/books`, reader)).status).toBe(404);
    expect((await server().json("PATCH", `/api/v1/series/${crypto.randomUUID()}`, { name: "x" }, admin)).status).toBe(404);
    const invalid = await server().json("PATCH", `/api/v1/series/${seriesId}`, { year: "soon", colour: "red" }, admin);
    expect(invalid.status).toBe(400);
  });

  test("series PATCH locks the edited fields across a deep rescan; unedited fields keep following the files", async () => {
    const seriesId = book("Captain Science #001.cbz").seriesId;
    const patched = await server().json(
      "PATCH",
      `/api/v1/series/${seriesId}`,
      { name: "Captain Science (Golden Age)", summary: "Space opera.", readingDirection: "rtl", year: 1950, publisher: "Youthful" },
      admin,
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "Captain Science (Golden Age)",
      nameSort: "captain science (golden age)",
      summary: "Space opera.",
      readingDirection: "rtl",
      year: 1950,
      publisher: "Youthful",
      lockedFields: ["name", "nameSort", "publisher", "readingDirection", "summary", "year"],
    });
    await scan(server(), library.adminToken, library.libraryId, "deep");
    const after = await get(`/api/v1/series/${seriesId}`, reader);
    expect(after.body).toMatchObject({ name: "Captain Science (Golden Age)", readingDirection: "rtl", year: 1950, publisher: "Youthful" });
    // Books show the series' direction as their effective one.
    const books = await get(`/api/v1/series/${seriesId}/books`, reader);
    expect(books.body.data.map((entry: { readingDirection: string; seriesName: string }) => [entry.readingDirection, entry.seriesName])).toEqual([
      ["rtl", "Captain Science (Golden Age)"],
      ["rtl", "Captain Science (Golden Age)"],
    ]);
  });

  test("a series' books come by number, then by title in natural order", async () => {
    const [a, b, c] = ["Extras Part A.cbz", "Extras Part B.cbz", "Extras Part C.cbz"].map(book);
    // Titles that only natural order sorts right; one numbered book goes first.
    for (const [target, edit] of [
      [a, { title: "Part 10", number: null }],
      [b, { title: "Part 2", number: null }],
      [c, { title: "Prologue", number: 1 }],
    ] as const) {
      const patched = await server().json("PATCH", `/api/v1/books/${target!.id}`, edit, admin);
      expect(patched.status).toBe(200);
    }
    const list = await get(`/api/v1/series/${a!.seriesId}/books`, reader);
    expect(list.status).toBe(200);
    expect(list.body.data.map((entry: { title: string }) => entry.title)).toEqual(["Prologue", "Part 2", "Part 10"]);
    const second = await get(`/api/v1/series/${a!.seriesId}/books?pageSize=1&page=2`, reader);
    expect(second.body).toMatchObject({ total: 3, totalPages: 3, page: 2 });
    expect(second.body.data.map((entry: { title: string }) => entry.title)).toEqual(["Part 2"]);
  });

  test("book PATCH (admin) locks title, titleSort, number, volume, summary and year across a deep rescan", async () => {
    const target = book("Captain Science #002.cbz");
    expect((await server().json("PATCH", `/api/v1/books/${target.id}`, { title: "x" }, reader)).status).toBe(403);
    expect((await server().json("PATCH", `/api/v1/books/${target.id}`, { number: -1 }, admin)).status).toBe(400);
    expect((await server().json("PATCH", `/api/v1/books/${target.id}`, { year: 10_000 }, admin)).status).toBe(400);
    expect((await server().json("PATCH", `/api/v1/books/${crypto.randomUUID()}`, { title: "x" }, admin)).status).toBe(404);
    const patched = await server().json("PATCH", `/api/v1/books/${target.id}`, { title: "The Sequel", titleSort: "sequel", number: 7, volume: 2, summary: "Told again.", year: 1961 }, admin);
    expect(patched.status).toBe(200);
    const edited = { title: "The Sequel", titleSort: "sequel", number: 7, numberSort: 7, volume: 2, summary: "Told again.", year: 1961 };
    expect(patched.body).toMatchObject(edited);
    await scan(server(), library.adminToken, library.libraryId, "deep");
    const after = await get(`/api/v1/books/${target.id}`, reader);
    expect(after.body).toMatchObject(edited);
  });

  test("books q matches title, series name and author, ignoring case; LIKE wildcards are literal", async () => {
    const titles = async (q: string) => {
      const list = await get(`/api/v1/books?q=${encodeURIComponent(q)}&sort=title,asc`, reader);
      expect(list.status).toBe(200);
      return list.body.data.map((entry: { title: string }) => entry.title);
    };
    expect(await titles("SEQUEL")).toEqual(["The Sequel"]);
    expect(await titles("golden age")).toHaveLength(2); // by series name
    expect(await titles("lewis CARROLL")).toEqual(["Alice's Adventures in Wonderland"]); // by author
    expect(await titles("imagemagick")).toEqual(["komga"]); // the PDF's author
    expect(await titles("%")).toEqual([]);
    expect(await titles("_")).toEqual([]);
  });

  test("books and series q through the text index: search syntax is literal, short queries still match", async () => {
    const total = async (path: string) => {
      const list = await get(path, reader);
      expect(list.status).toBe(200);
      return list.body.total;
    };
    // FTS5 query syntax (quotes, operators, prefix stars) is matched as plain text.
    for (const q of ['"sequel"', "sequel*", "sequel OR alice", "NEAR(sequel)", 'the "sequel']) {
      expect({ q, books: await total(`/api/v1/books?q=${encodeURIComponent(q)}`) }).toEqual({ q, books: 0 });
      expect({ q, series: await total(`/api/v1/series?q=${encodeURIComponent(q)}`) }).toEqual({ q, series: 0 });
    }
    // Substrings inside words, across the series name, and under three characters.
    expect(await total(`/api/v1/books?q=${encodeURIComponent("equ")}`)).toBe(1);
    expect(await total(`/api/v1/books?q=${encodeURIComponent("den ag")}`)).toBe(2);
    expect(await total(`/api/v1/series?q=${encodeURIComponent("apta")}`)).toBeGreaterThan(0);
    expect(await total(`/api/v1/books?q=${encodeURIComponent("qu")}`)).toBeGreaterThan(0);
  });

  test("books sort by title, number, createdAt and series; unknown fields are 400", async () => {
    const order = async (sort: string) =>
      (await get(`/api/v1/books?libraryId=${library.libraryId}&sort=${sort}`, reader)).body.data.map((entry: { title: string }) => entry.title);
    const byTitle = await order("title,asc");
    expect(byTitle).toEqual([...byTitle].sort((x: string, y: string) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1)));
    expect(await order("title,desc")).toEqual([...byTitle].reverse());
    const byNumber = await order("number,asc");
    // Number 1 twice (tie broken by title), then 7, then the unnumbered books.
    expect(byNumber.slice(0, 3)).toEqual(["Captain Science #001", "Prologue", "The Sequel"]);
    expect((await order("createdAt,desc")).length).toBe(7);
    expect((await order("series,asc")).length).toBe(7);
    for (const sort of ["pages,asc", "title,up", "title,asc,again"]) {
      const response = await get(`/api/v1/books?sort=${sort}`, reader);
      expect({ sort, status: response.status }).toEqual({ sort, status: 400 });
    }
  });

  test("a hidden series and its books do not exist for the user it is hidden from", async () => {
    const pdf = book("komga.pdf");
    await hideSeriesFrom(server(), library.readerId, pdf.seriesId);
    expect((await get(`/api/v1/series/${pdf.seriesId}`, reader)).status).toBe(404);
    expect((await get(`/api/v1/series/${pdf.seriesId}/books`, reader)).status).toBe(404);
    expect((await get(`/api/v1/books/${pdf.id}`, reader)).status).toBe(404);
    const series = await get("/api/v1/series", reader);
    expect(series.body.data.map((entry: { id: string }) => entry.id)).not.toContain(pdf.seriesId);
    expect(series.body.total).toBe(3);
    expect((await get("/api/v1/books?q=komga", reader)).body.total).toBe(0);
    // The admin still sees everything.
    expect((await get(`/api/v1/series/${pdf.seriesId}`, admin)).status).toBe(200);
  });

  test("a book's readingDirection falls back to its library's default while its series has none", async () => {
    // A library whose default is right-to-left, holding a book without any direction metadata.
    const root = libraryRoot(server(), "Manga shelf");
    await makeCbz(join(root, "Untagged", "Untagged 01.cbz"), { seed: 4242, comicInfo: comicInfo({ Series: "Untagged", Number: 1 }) });
    const manga = await createLibrary(server(), admin, { name: "Manga shelf", path: root, defaultReadingDirection: "rtl" });
    await scan(server(), library.adminToken, manga.id);
    const [untagged] = (await get(`/api/v1/books?libraryId=${manga.id}`, reader)).body.data;
    expect(untagged).toMatchObject({ title: "Untagged 01", readingDirection: "rtl" });
    const seriesId = untagged.seriesId;
    const direction = async () => ({
      book: (await get(`/api/v1/books/${untagged.id}`, reader)).body.readingDirection,
      inList: (await get(`/api/v1/series/${seriesId}/books`, reader)).body.data[0].readingDirection,
      series: (await get(`/api/v1/series/${seriesId}`, reader)).body.readingDirection,
    });
    expect(await direction()).toEqual({ book: "rtl", inList: "rtl", series: "rtl" });

    // The fallback follows the library's setting as it is now ...
    expect((await server().json("PATCH", `/api/v1/libraries/${manga.id}`, { defaultReadingDirection: "webtoon" }, admin)).status).toBe(200);
    expect(await direction()).toEqual({ book: "webtoon", inList: "webtoon", series: "webtoon" });
    // ... a direction of the series' own wins over it, and clearing it falls back again.
    expect((await server().json("PATCH", `/api/v1/series/${seriesId}`, { readingDirection: "ltr" }, admin)).status).toBe(200);
    expect(await direction()).toEqual({ book: "ltr", inList: "ltr", series: "ltr" });
    expect((await server().json("PATCH", `/api/v1/series/${seriesId}`, { readingDirection: null }, admin)).status).toBe(200);
    expect(await direction()).toEqual({ book: "webtoon", inList: "webtoon", series: "webtoon" });
  });
});
