/**
 * The book counts that series keep for list totals and library counts (migration 0010, kept by
 * database triggers): after every kind of change a scan or an admin makes (new files, vanished
 * files, returning files, a file moved to another series, permanent deletion of one book and of
 * a library's soft-deleted books, a library deleted), each total the API shows still equals
 * the books it lists, for an admin and for a reader limited by a sharing tag, and the stored
 * counts equal a count of the books.
 */
import { beforeAll, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

type Headers = Record<string, string>;

/** A list's total and the entries it actually holds (pageSize 500 holds them all here). */
async function listed(server: TestServer, path: string, headers: Headers): Promise<{ total: number; data: Record<string, any>[] }> {
  const { status, body } = await server.json("GET", `${path}${path.includes("?") ? "&" : "?"}pageSize=500`, undefined, headers);
  expect(status).toBe(200);
  expect(body.total).toBe(body.data.length);
  return { total: body.total, data: body.data };
}

forEachDatabase("book counts kept per series", (server) => {
  let admin: Headers;
  let reader: Headers;
  let mainRoot: string;
  let mainId: string;
  let otherId: string;
  const parking = tempFolder();

  /** Present books per series name, from the book list itself. */
  const presentBySeries = async (headers: Headers, libraryId?: string) => {
    const { data } = await listed(server(), `/api/v1/books${libraryId ? `?libraryId=${libraryId}` : ""}`, headers);
    const counts: Record<string, number> = {};
    for (const book of data) counts[book.seriesName] = (counts[book.seriesName] ?? 0) + 1;
    return counts;
  };

  /** What every surface says, for one caller: book totals, the series list's counts, the libraries' counts. */
  const totals = async (headers: Headers) => {
    const books = await presentBySeries(headers);
    const series = await listed(server(), "/api/v1/series", headers);
    const seriesCounts = Object.fromEntries(series.data.map((entry) => [entry.name, entry.bookCount]));
    const { body: libraries } = await server().json("GET", "/api/v1/libraries", undefined, headers);
    const libraryCounts = Object.fromEntries(libraries.map((library: any) => [library.name, [library.seriesCount, library.bookCount]]));
    const deleted = (await listed(server(), `/api/v1/books?libraryId=${mainId}&deleted=true`, headers)).total;
    return { books, seriesCounts, libraryCounts, deleted };
  };

  /** The stored counts equal a count of the books, for every series. */
  const expectStoredCountsTrue = async () => {
    const wrong = await rawQuery(
      server(),
      `SELECT s.name FROM series s
       WHERE s.present_book_count <> (SELECT count(*) FROM books b WHERE b.series_id = s.id AND NOT b.deleted)
          OR s.deleted_book_count <> (SELECT count(*) FROM books b WHERE b.series_id = s.id AND b.deleted)`,
    );
    expect(wrong).toEqual([]);
  };

  beforeAll(async () => {
    const session = await adminSession(server());
    admin = bearer(session.token);
    mainRoot = tempFolder();
    for (const [index, path] of ["Alpha/Alpha 001.cbz", "Alpha/Alpha 002.cbz", "Alpha/Alpha 003.cbz", "Beta/Beta 001.cbz", "Beta/Beta 002.cbz"].entries()) {
      await makeCbz(join(mainRoot, path), { seed: index + 1, pages: 2 });
    }
    const otherRoot = tempFolder();
    await makeCbz(join(otherRoot, "Gamma", "Gamma 001.cbz"), { seed: 10, pages: 2 });
    mainId = (await createLibrary(server(), admin, { name: "main", path: mainRoot })).id;
    otherId = (await createLibrary(server(), admin, { name: "other", path: otherRoot })).id;
    await scan(server(), admin, mainId);
    await scan(server(), admin, otherId);

    // A reader allowed one tag, which only Alpha carries.
    await createUser(server(), session.token, "reader");
    reader = bearer((await login(server(), "reader")).token);
    const tagId = (await server().json("POST", "/api/v1/sharing-tags", { name: "alpha only" }, admin)).body.id;
    const alpha = (await listed(server(), "/api/v1/series?q=Alpha", admin)).data[0]!;
    expect((await server().json("PUT", `/api/v1/series/${alpha.id}/sharing-tags`, { sharingTagIds: [tagId] }, admin)).status).toBe(200);
    const readerId = (await server().json("GET", "/api/v1/users?pageSize=500", undefined, admin)).body.data.find((user: any) => user.username === "reader").id;
    expect((await server().json("PUT", `/api/v1/users/${readerId}/sharing-tags`, { sharingTagId: tagId, accessMode: "allow" }, admin)).status).toBe(200);
  });

  test("a first scan: every total counts what is listed", async () => {
    expect(await totals(admin)).toEqual({
      books: { Alpha: 3, Beta: 2, Gamma: 1 },
      seriesCounts: { Alpha: 3, Beta: 2, Gamma: 1 },
      libraryCounts: { main: [2, 5], other: [1, 1] },
      deleted: 0,
    });
    expect(await totals(reader)).toEqual({ books: { Alpha: 3 }, seriesCounts: { Alpha: 3 }, libraryCounts: { main: [1, 3] }, deleted: 0 });
    expect((await listed(server(), `/api/v1/books?libraryId=${otherId}`, admin)).total).toBe(1);
    await expectStoredCountsTrue();
  });

  test("vanished files are soft-deleted: present counts fall, a series with none left leaves the lists", async () => {
    renameSync(join(mainRoot, "Alpha", "Alpha 001.cbz"), join(parking, "Alpha 001.cbz"));
    renameSync(join(mainRoot, "Beta", "Beta 001.cbz"), join(parking, "Beta 001.cbz"));
    renameSync(join(mainRoot, "Beta", "Beta 002.cbz"), join(parking, "Beta 002.cbz"));
    expect((await scan(server(), admin, mainId)).booksDeleted).toBe(3);
    expect(await totals(admin)).toEqual({
      books: { Alpha: 2, Gamma: 1 },
      seriesCounts: { Alpha: 2, Gamma: 1 },
      libraryCounts: { main: [1, 2], other: [1, 1] },
      deleted: 3,
    });
    expect(await totals(reader)).toEqual({ books: { Alpha: 2 }, seriesCounts: { Alpha: 2 }, libraryCounts: { main: [1, 2] }, deleted: 1 });
    await expectStoredCountsTrue();
  });

  test("a returning file is restored, and a file moved to another series' folder moves its count", async () => {
    renameSync(join(parking, "Alpha 001.cbz"), join(mainRoot, "Alpha", "Alpha 001.cbz"));
    // Renamed as it moves: a file name saying "Alpha" would name Beta's folder (its only book's vote).
    renameSync(join(mainRoot, "Alpha", "Alpha 003.cbz"), join(mainRoot, "Beta", "Beta 003.cbz"));
    await scan(server(), admin, mainId);
    expect(await totals(admin)).toEqual({
      books: { Alpha: 2, Beta: 1, Gamma: 1 },
      seriesCounts: { Alpha: 2, Beta: 1, Gamma: 1 },
      libraryCounts: { main: [2, 3], other: [1, 1] },
      deleted: 2,
    });
    expect(await totals(reader)).toEqual({ books: { Alpha: 2 }, seriesCounts: { Alpha: 2 }, libraryCounts: { main: [1, 2] }, deleted: 0 });
    await expectStoredCountsTrue();
  });

  test("permanent deletion of one book, then of the library's soft-deleted books, then of a library", async () => {
    const [first] = (await listed(server(), `/api/v1/books?libraryId=${mainId}&deleted=true`, admin)).data;
    expect((await server().json("DELETE", `/api/v1/books/${first!.id}`, undefined, admin)).status).toBe(204);
    expect((await totals(admin)).deleted).toBe(1);
    await expectStoredCountsTrue();
    expect((await server().json("DELETE", `/api/v1/libraries/${mainId}/deleted-books`, undefined, admin)).body).toEqual({ removed: 1 });
    expect((await totals(admin)).deleted).toBe(0);
    await expectStoredCountsTrue();
    expect((await server().json("DELETE", `/api/v1/libraries/${otherId}`, undefined, admin)).status).toBe(204);
    expect(await totals(admin)).toEqual({ books: { Alpha: 2, Beta: 1 }, seriesCounts: { Alpha: 2, Beta: 1 }, libraryCounts: { main: [2, 3] }, deleted: 0 });
    await expectStoredCountsTrue();
  });

  test("books of one series written at once by many scan workers are all catalogued and counted", async () => {
    // On PostgreSQL each worker's transaction holds its series row while it inserts a book:
    // the count's update must queue behind the others, never deadlock (a lost book).
    const crowdRoot = tempFolder();
    for (let number = 1; number <= 40; number++) await makeCbz(join(crowdRoot, "Crowd", `Crowd ${number}.cbz`), { seed: 100 + number, pages: 1 });
    const crowdId = (await createLibrary(server(), admin, { name: "crowd", path: crowdRoot })).id;
    expect(await scan(server(), admin, crowdId)).toMatchObject({ status: "completed", booksAdded: 40, pathsSkipped: 0, errors: 0 });
    expect((await listed(server(), `/api/v1/books?libraryId=${crowdId}`, admin)).total).toBe(40);
    await expectStoredCountsTrue();
  });
  // Three of five files vanish at once above: more than the suspicious-scan guard lets through
  // by default. Eight scan workers make concurrent writes to one series likely.
}, { scanner: { max_removal_percent: 100, concurrency: 8 } });
