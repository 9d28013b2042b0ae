import { beforeAll, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { forEachDatabase } from "../helpers/server";
import { bearer, hideSeriesFrom, scan, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Sorting/Sorting #001.cbz": "cbz/kavita/sorting.zip",
  "Hidden/Hidden #001.cbz": "cbz/stump/book-image-format-test.zip",
  "Leaves/leaves.epub": "epub/stump/leaves.epub",
};

forEachDatabase("Read progress", (server) => {
  let library: ScannedLibrary;
  let reader: Record<string, string>;
  let admin: Record<string, string>;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
    reader = bearer(library.readerToken);
    admin = bearer(library.adminToken);
    await hideSeriesFrom(server(), library.readerId, library.books["Hidden #001.cbz"]!.seriesId);
  });
  const progressOf = (id: string, headers: Record<string, string>) => server().json("GET", `/api/v1/books/${id}/progress`, undefined, headers);
  const put = (id: string, body: unknown, headers: Record<string, string>) => server().json("PUT", `/api/v1/books/${id}/progress`, body, headers);

  test("no progress yet is 204; PUT records it, GET and the BookDto show it", async () => {
    const id = library.books["Captain Science #001.cbz"]!.id;
    const none = await progressOf(id, reader);
    expect(none.status).toBe(204);
    const saved = await put(id, { page: 2 }, reader);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      page: 2,
      completed: false,
      percentage: 40,
      progression: null,
      locator: null,
      device: null,
      updatedAt: expect.any(String),
    });
    expect(Date.now() - Date.parse(saved.body.updatedAt)).toBeLessThan(60_000);
    expect((await progressOf(id, reader)).body).toEqual(saved.body);
    const dto = await server().json("GET", `/api/v1/books/${id}`, undefined, reader);
    expect(dto.body.readProgress).toEqual(saved.body);
  });

  test("progress is per user: nobody else sees or changes it", async () => {
    const id = library.books["Captain Science #001.cbz"]!.id;
    expect((await progressOf(id, admin)).status).toBe(204);
    expect((await server().json("GET", `/api/v1/books/${id}`, undefined, admin)).body.readProgress).toBeNull();
    expect((await put(id, { page: 4 }, admin)).status).toBe(200);
    expect((await progressOf(id, reader)).body.page).toBe(2);
    expect((await server().json("DELETE", `/api/v1/books/${id}/progress`, undefined, admin)).status).toBe(204);
    expect((await progressOf(id, reader)).body.page).toBe(2);
  });

  test("completed: true means the last page; reaching the last page completes; DELETE forgets", async () => {
    const id = library.books["Sorting #001.cbz"]!.id;
    expect((await put(id, { completed: true }, reader)).body).toMatchObject({ page: 2, completed: true, percentage: 100 });
    expect((await put(id, { page: 1 }, reader)).body).toMatchObject({ page: 1, completed: false, percentage: 50 });
    expect((await put(id, { page: 2 }, reader)).body).toMatchObject({ page: 2, completed: true, percentage: 100 });
    expect((await put(id, { page: 2, completed: false }, reader)).body).toMatchObject({ page: 2, completed: false, percentage: 100 });
    expect((await put(id, { page: 1, completed: true }, reader)).body).toMatchObject({ page: 1, completed: true, percentage: 100 });
    expect((await server().json("DELETE", `/api/v1/books/${id}/progress`, undefined, reader)).status).toBe(204);
    expect((await progressOf(id, reader)).status).toBe(204);
    expect((await server().json("DELETE", `/api/v1/books/${id}/progress`, undefined, reader)).status).toBe(204);
  });

  test("pages outside 1..pageCount are 422, malformed bodies 400; unknown, hidden and anonymous fail", async () => {
    const id = library.books["Sorting #001.cbz"]!.id;
    for (const body of [{ page: 0 }, { page: 3 }, { page: -1 }, {}, { completed: false }]) {
      const response = await put(id, body, reader);
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 422, error: "UnprocessableEntity" });
    }
    expect((await put(id, { page: 3 }, reader)).body.details).toEqual({ fields: { page: "must be between 1 and 2" } });
    for (const body of [{ page: "one" }, { page: 1.5 }, { page: 1, completed: "yes" }]) {
      const response = await put(id, body, reader);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    expect((await put(crypto.randomUUID(), { page: 1 }, reader)).status).toBe(404);
    const hidden = library.books["Hidden #001.cbz"]!.id;
    expect((await put(hidden, { page: 1 }, reader)).status).toBe(404);
    expect((await progressOf(hidden, reader)).status).toBe(404);
    expect((await server().json("DELETE", `/api/v1/books/${hidden}/progress`, undefined, reader)).status).toBe(404);
    expect((await put(id, { page: 1 }, {})).status).toBe(401);
    expect((await progressOf(id, {})).status).toBe(401);
  });

  test("progress survives a move (renamed file, rescan) and a soft-delete followed by the file's return", async () => {
    const target = library.books["Captain Science #001.cbz"]!;
    expect((await put(target.id, { page: 3 }, reader)).status).toBe(200);
    const folder = join(library.root, "Captain Science");
    renameSync(join(folder, "Captain Science #001.cbz"), join(folder, "Captain Science #001 (renamed).cbz"));
    await scan(server(), library.adminToken, library.libraryId);
    const moved = await server().json("GET", `/api/v1/books/${target.id}`, undefined, reader);
    expect(moved.status).toBe(200);
    // The path is for admins only.
    expect(moved.body.filePath).toBeUndefined();
    const movedForAdmin = await server().json("GET", `/api/v1/books/${target.id}`, undefined, bearer(library.adminToken));
    expect(movedForAdmin.body.filePath).toEndWith("Captain Science #001 (renamed).cbz");
    expect(moved.body.deleted).toBe(false);
    expect(moved.body.readProgress).toMatchObject({ page: 3, completed: false });

    renameSync(join(folder, "Captain Science #001 (renamed).cbz"), join(library.root, "outside.bin"));
    await scan(server(), library.adminToken, library.libraryId);
    const gone = await server().json("GET", `/api/v1/books/${target.id}`, undefined, reader);
    expect(gone.body.deleted).toBe(true);
    expect((await progressOf(target.id, reader)).body).toMatchObject({ page: 3 });

    renameSync(join(library.root, "outside.bin"), join(folder, "Captain Science #001.cbz"));
    await scan(server(), library.adminToken, library.libraryId);
    const back = await server().json("GET", `/api/v1/books/${target.id}`, undefined, reader);
    expect(back.body).toMatchObject({ deleted: false, readProgress: { page: 3, completed: false } });
  });

  test("an EPUB records a progression and a Readium locator; page follows the progression unless given", async () => {
    const book = library.books["leaves.epub"]!;
    expect(book.pageCount).toBeGreaterThan(2);
    const locator = {
      href: `/api/v1/books/${book.id}/resource/OEBPS/chapter.xhtml`,
      type: "application/xhtml+xml",
      title: "Chapter",
      locations: { progression: 0.25, totalProgression: 0.5, position: 7, fragments: ["p12"], cssSelector: "#p12" },
      text: { highlight: "Leaves" },
    };
    const saved = await put(book.id, { progression: 0.5, locator }, reader);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      page: Math.floor(0.5 * book.pageCount) + 1,
      completed: false,
      percentage: 50,
      progression: 0.5,
      locator,
      device: null,
      updatedAt: expect.any(String),
    });
    expect((await progressOf(book.id, reader)).body).toEqual(saved.body);
    expect((await server().json("GET", `/api/v1/books/${book.id}`, undefined, reader)).body.readProgress).toEqual(saved.body);
    const listed = await server().json("GET", `/api/v1/books?seriesId=${book.seriesId}`, undefined, reader);
    expect(listed.body.data[0].readProgress).toEqual(saved.body);

    expect((await put(book.id, { page: 2, progression: 0.12345678 }, reader)).body).toMatchObject({ page: 2, progression: 0.12345678, percentage: 12.3, locator: null });
    expect((await put(book.id, { progression: 1 }, reader)).body).toMatchObject({ page: book.pageCount, completed: true, percentage: 100 });
    expect((await put(book.id, { progression: 0.9, completed: true }, reader)).body).toMatchObject({ completed: true, percentage: 100 });
    // The last writer wins: a page-only write (OPDS page streaming, a comic-style client) replaces the whole position.
    const pageOnly = await put(book.id, { page: 1 }, reader);
    expect(pageOnly.body).toMatchObject({ page: 1, completed: false, progression: null, locator: null, percentage: Math.round(1000 / book.pageCount) / 10 });
  });

  test("progression and locators are refused where they make no sense; locators are bounded", async () => {
    const epub = library.books["leaves.epub"]!.id;
    const comic = library.books["Sorting #001.cbz"]!.id;
    const refused = async (id: string, body: unknown, status: number, field?: string) => {
      const response = await put(id, body, reader);
      expect({ body, status: response.status }).toEqual({ body, status });
      if (field) expect(Object.keys(response.body.details.fields)).toEqual([field]);
    };
    await refused(comic, { page: 1, progression: 0.5 }, 422, "progression");
    await refused(comic, { page: 1, locator: { href: "a.xhtml" } }, 422, "locator");
    await refused(epub, { progression: 1.5 }, 422, "progression");
    await refused(epub, { progression: -0.1 }, 422, "progression");
    await refused(epub, { progression: 0.5, locator: { href: "a.xhtml", locations: { cssSelector: "x".repeat(9000) } } }, 422, "locator");
    await refused(epub, { progression: 0.5, locator: { type: "application/xhtml+xml" } }, 400);
    await refused(epub, { progression: "half" }, 400);
    // Keys a locator does not have are dropped, not stored.
    expect((await put(epub, { progression: 0.5, locator: { href: "a.xhtml", unknown: 1 } }, reader)).body.locator).toEqual({ href: "a.xhtml" });
  });
});
