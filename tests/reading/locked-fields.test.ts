/**
 * Issue #32: DELETE .../locked-fields/{field} unlocks one edited field of a series or a book
 * (admin): it stays as edited until the next scan that reads the files, which writes the
 * files' value again, while the fields still locked keep theirs.
 */
import { beforeAll, expect, test } from "bun:test";
import { forEachDatabase } from "../helpers/server";
import { bearer, scan, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Captain Science/Captain Science #002.cbz": "cbz/kavita/sorting.zip",
};

forEachDatabase("Unlocking edited fields through the API", (server) => {
  let library: ScannedLibrary;
  let admin: Record<string, string>;
  let reader: Record<string, string>;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
    admin = bearer(library.adminToken);
    reader = bearer(library.readerToken);
  });
  const get = (path: string) => server().json("GET", path, undefined, admin);
  const unlock = (path: string, headers = admin) => server().json("DELETE", path, undefined, headers);
  const first = () => library.books["Captain Science #001.cbz"]!;
  const second = () => library.books["Captain Science #002.cbz"]!;

  test("a series field unlocked takes the files' value again at the next deep scan; the fields still locked keep theirs", async () => {
    const seriesId = first().seriesId;
    const scanned = (await get(`/api/v1/series/${seriesId}`)).body;
    const edited = await server().json("PATCH", `/api/v1/series/${seriesId}`, { name: "Renamed by hand", summary: "Edited summary." }, admin);
    expect(edited.body.lockedFields).toEqual(["name", "nameSort", "summary"]);

    const unlocked = await unlock(`/api/v1/series/${seriesId}/locked-fields/name`);
    expect(unlocked.status).toBe(200);
    // Unlocked, not yet rescanned: the edited value stays.
    expect(unlocked.body).toMatchObject({ name: "Renamed by hand", lockedFields: ["nameSort", "summary"] });
    expect((await unlock(`/api/v1/series/${seriesId}/locked-fields/nameSort`)).body.lockedFields).toEqual(["summary"]);
    // A field that is not locked: nothing changes.
    expect((await unlock(`/api/v1/series/${seriesId}/locked-fields/publisher`)).body.lockedFields).toEqual(["summary"]);

    await scan(server(), library.adminToken, library.libraryId, "deep");
    const after = (await get(`/api/v1/series/${seriesId}`)).body;
    expect(after).toMatchObject({ name: scanned.name, nameSort: scanned.nameSort, summary: "Edited summary.", lockedFields: ["summary"] });
  });

  test("a book field unlocked takes the file's value again at the next deep scan; number takes numberSort with it", async () => {
    const bookId = second().id;
    const scanned = (await get(`/api/v1/books/${bookId}`)).body;
    await server().json("PATCH", `/api/v1/books/${bookId}`, { title: "Retitled by hand", number: 99, year: 1901 }, admin);
    expect((await unlock(`/api/v1/books/${bookId}/locked-fields/title`)).body.lockedFields).toEqual(["number", "numberSort", "year"]);
    const unlocked = await unlock(`/api/v1/books/${bookId}/locked-fields/number`);
    expect(unlocked.body).toMatchObject({ title: "Retitled by hand", number: 99, numberSort: 99, lockedFields: ["year"] });

    await scan(server(), library.adminToken, library.libraryId, "deep");
    const after = (await get(`/api/v1/books/${bookId}`)).body;
    expect(after).toMatchObject({ title: scanned.title, number: scanned.number, numberSort: scanned.numberSort, year: 1901, lockedFields: ["year"] });
  });

  test("only admins unlock; an unknown field is 400, an unknown record 404, a bad id 400", async () => {
    const seriesId = first().seriesId;
    const bookId = second().id;
    expect((await unlock(`/api/v1/series/${seriesId}/locked-fields/summary`, {})).status).toBe(401);
    expect((await unlock(`/api/v1/series/${seriesId}/locked-fields/summary`, reader)).status).toBe(403);
    expect((await unlock(`/api/v1/books/${bookId}/locked-fields/year`, reader)).status).toBe(403);
    expect((await unlock(`/api/v1/series/${seriesId}/locked-fields/colour`)).status).toBe(400);
    // numberSort follows number; it is not a field of the PATCH body.
    expect((await unlock(`/api/v1/books/${bookId}/locked-fields/numberSort`)).status).toBe(400);
    expect((await unlock(`/api/v1/books/${bookId}/locked-fields/name`)).status).toBe(400);
    expect((await unlock(`/api/v1/series/${crypto.randomUUID()}/locked-fields/summary`)).status).toBe(404);
    expect((await unlock(`/api/v1/books/${crypto.randomUUID()}/locked-fields/title`)).status).toBe(404);
    expect((await unlock(`/api/v1/books/not-an-id/locked-fields/title`)).status).toBe(400);
    expect((await get(`/api/v1/series/${seriesId}`)).body.lockedFields).toContain("summary");
  });
});
