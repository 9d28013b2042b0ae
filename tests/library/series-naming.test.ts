/**
 * The series rule (docs/api.md, "How a series is named and ordered"): a series is named by the
 * series name more than half of its books carry, else by its folder, whatever order the scan
 * meets the books in and however many of them it reads at once; its other fields come from its
 * first book in series order that has them; an admin's edit wins; a rename is reported. Every
 * book has a place in its series' order (BookDto `seriesPosition`), which the series' book list
 * and its OPDS feed follow.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer, PASSWORD } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { booksOf, comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { openEventStream } from "../helpers/sse";
import { processClient, waitFor } from "../helpers/server-processes";
import { rawQuery } from "../helpers/sql";

/** The three books of a folder mixing metadata: one untagged, two tagged with different series. */
const MIXED = [
  { comicInfo: undefined },
  { comicInfo: comicInfo({ Series: "Blue Series", Number: 2 }) },
  { comicInfo: comicInfo({ Series: "Crimson Series", Number: 3, Publisher: "Crimson Press" }) },
];

/** Every order of [0, 1, 2]. */
const PERMUTATIONS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

async function seriesNamed(server: ReturnType<Parameters<Parameters<typeof forEachDatabase>[1]>[0]>, admin: Record<string, string>, libraryId: string) {
  const { body } = await server.json("GET", `/api/v1/series?libraryId=${libraryId}&pageSize=100`, undefined, admin);
  return new Map<string, Record<string, any>>(body.data.map((series: Record<string, any>) => [series.name, series]));
}

for (const concurrency of [1, 4]) {
  forEachDatabase(`series naming and order, ${concurrency} scan worker(s)`, (server) => {
    let admin: Record<string, string>;
    beforeAll(async () => {
      admin = bearer((await adminSession(server())).token);
    });

    test("a stray tagged book never renames its folder, in any file order; a consistently tagged folder takes its tagged name", async () => {
      for (const [round, order] of PERMUTATIONS.entries()) {
        const root = tempFolder();
        // The file names decide the order the scan meets the books in.
        for (const [place, which] of order.entries()) {
          await makeCbz(join(root, "Mixed", `Mixed 0${place + 1}.cbz`), { seed: 100 * round + which + 1, comicInfo: MIXED[which]!.comicInfo });
        }
        for (let number = 1; number <= 2; number++) {
          await makeCbz(join(root, "blue-scans", `b${number}.cbz`), { seed: 100 * round + 10 + number, comicInfo: comicInfo({ Series: "Blue Series", Number: number }) });
          await makeCbz(join(root, "crimson-scans", `c${number}.cbz`), { seed: 100 * round + 20 + number, comicInfo: comicInfo({ Series: "Crimson Series", Number: number }) });
        }
        const library = await createLibrary(server(), admin, { name: `mixed-${concurrency}-${round}`, path: root });
        expect((await scan(server(), admin, library.id)).status).toBe("completed");
        const names = await seriesNamed(server(), admin, library.id);
        expect([...names.keys()].sort()).toEqual(["Blue Series", "Crimson Series", "Mixed"]);
        // Other fields: from the first book in series order that has them.
        expect(names.get("Mixed")).toMatchObject({ publisher: "Crimson Press", bookCount: 3 });
      }
    }, 120_000);

    test("the majority names the series; a rename by a scan is reported; normal and deep rescans keep it; a locked name wins", async () => {
      const root = tempFolder();
      await makeCbz(join(root, "Voting", "first.cbz"), { seed: 1001 });
      await makeCbz(join(root, "Voting", "second.cbz"), { seed: 1002, comicInfo: comicInfo({ Series: "Voted Name", Number: 2 }) });
      const library = await createLibrary(server(), admin, { name: `voting-${concurrency}`, path: root });
      const first = await scan(server(), admin, library.id);
      expect(first).toMatchObject({ status: "completed", seriesCreated: 1 });
      expect([...(await seriesNamed(server(), admin, library.id)).keys()]).toEqual(["Voting"]);

      // Two of three books now carry "Voted Name": more than half.
      await makeCbz(join(root, "Voting", "third.cbz"), { seed: 1003, comicInfo: comicInfo({ Series: "voted  name", Number: 3 }) });
      const stream = openEventStream(server(), admin);
      await stream.opened;
      const renamed = await scan(server(), admin, library.id);
      expect(renamed).toMatchObject({ status: "completed", booksAdded: 1, seriesRenamed: 1 });
      // The scan's events say it too.
      await waitFor(() => stream.events.some((event) => event.data?.scanId === renamed.scanId && event.data?.status === "completed"), "the completed event");
      stream.close();
      expect(stream.events.find((event) => event.data?.scanId === renamed.scanId && event.data?.status === "completed")?.data).toMatchObject({ seriesRenamed: 1 });
      const series = (await seriesNamed(server(), admin, library.id)).get("Voted Name");
      expect(series).toBeDefined();

      for (const mode of ["normal", "deep"] as const) {
        expect(await scan(server(), admin, library.id, mode)).toMatchObject({ status: "completed", seriesRenamed: 0 });
        expect([...(await seriesNamed(server(), admin, library.id)).keys()]).toEqual(["Voted Name"]);
      }

      // A book leaving takes its vote: one of two is not more than half, the folder names it again.
      rmSync(join(root, "Voting", "third.cbz"));
      expect(await scan(server(), admin, library.id)).toMatchObject({ booksDeleted: 1, seriesRenamed: 1 });
      expect([...(await seriesNamed(server(), admin, library.id)).keys()]).toEqual(["Voting"]);

      const edited = await server().json("PATCH", `/api/v1/series/${series!.id}`, { name: "Admin Name" }, admin);
      expect(edited.status).toBe(200);
      await makeCbz(join(root, "Voting", "third.cbz"), { seed: 1003, comicInfo: comicInfo({ Series: "Voted Name", Number: 3 }) });
      for (const mode of ["normal", "deep"] as const) {
        expect(await scan(server(), admin, library.id, mode)).toMatchObject({ status: "completed", seriesRenamed: 0 });
        expect([...(await seriesNamed(server(), admin, library.id)).keys()]).toEqual(["Admin Name"]);
      }
    }, 60_000);

    test("two folders whose books share a series name stay two series", async () => {
      const root = tempFolder();
      for (const folder of ["Run 1", "Run 2"]) {
        for (let number = 1; number <= 2; number++) {
          await makeCbz(join(root, folder, `${number}.cbz`), { seed: 2000 + folder.length * 10 + number + (folder === "Run 2" ? 50 : 0), comicInfo: comicInfo({ Series: "Same Name", Number: number }) });
        }
      }
      const library = await createLibrary(server(), admin, { name: `same-${concurrency}`, path: root });
      expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", seriesCreated: 2 });
      const books = await booksOf(server(), admin, library.id);
      expect(new Set(books.map((book) => book.seriesId)).size).toBe(2);
      expect(new Set(books.map((book) => book.seriesName))).toEqual(new Set(["Same Name"]));
    });

    test("every book has a place in its series' order: numbered by number, then the unnumbered in natural order", async () => {
      const root = tempFolder();
      const folder = join(root, "Ordered");
      await makeCbz(join(folder, "Ordered 10.cbz"), { seed: 3001 });
      await makeCbz(join(folder, "Ordered 2.cbz"), { seed: 3002 });
      await makeCbz(join(folder, "Ordered 2.5.cbz"), { seed: 3003 });
      await makeCbz(join(folder, "x.cbz"), { seed: 3004, comicInfo: comicInfo({ Title: "Part 10" }) });
      await makeCbz(join(folder, "y.cbz"), { seed: 3005, comicInfo: comicInfo({ Title: "Part 2" }) });
      await makeCbz(join(folder, "z.cbz"), { seed: 3006, comicInfo: comicInfo({ Title: "part 2" }) });
      const library = await createLibrary(server(), admin, { name: `ordered-${concurrency}`, path: root });
      expect((await scan(server(), admin, library.id)).status).toBe("completed");
      const expected = ["Ordered 2.cbz", "Ordered 2.5.cbz", "Ordered 10.cbz", "y.cbz", "z.cbz", "x.cbz"];

      const seriesId = (await booksOf(server(), admin, library.id))[0]!.seriesId;
      const listed = await server().json("GET", `/api/v1/series/${seriesId}/books?pageSize=100`, undefined, admin);
      const fileOf = (book: Record<string, any>) => book.filePath.slice(book.filePath.lastIndexOf("/") + 1);
      expect(listed.body.data.map(fileOf)).toEqual(expected);
      expect(listed.body.data.map((book: Record<string, any>) => book.seriesPosition)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(listed.body.data.map((book: Record<string, any>) => book.number)).toEqual([2, null, 10, null, null, null]);

      // The OPDS acquisition feed lists them in the same order.
      const feed = await server().fetch(`/opds/v1.2/series/${seriesId}`, { headers: admin });
      const titles = [...(await feed.text()).matchAll(/<entry>[\s\S]*?<title>([^<]*)<\/title>/g)].map((match) => match[1]);
      expect(titles).toEqual(listed.body.data.map((book: Record<string, any>) => book.title));

      // An admin's number moves the book, and every position follows.
      const last = listed.body.data[5];
      expect((await server().json("PATCH", `/api/v1/books/${last.id}`, { number: 1 }, admin)).status).toBe(200);
      const after = await server().json("GET", `/api/v1/series/${seriesId}/books?pageSize=100`, undefined, admin);
      expect(after.body.data.map(fileOf)).toEqual(["x.cbz", ...expected.slice(0, 5)]);
      expect(after.body.data.map((book: Record<string, any>) => book.seriesPosition)).toEqual([1, 2, 3, 4, 5, 6]);

      // A book leaving: the others close up; a soft-deleted book has no place.
      renameSync(join(folder, "Ordered 2.cbz"), join(tempFolder(), "gone.cbz"));
      await scan(server(), admin, library.id);
      const closed = await server().json("GET", `/api/v1/series/${seriesId}/books?pageSize=100`, undefined, admin);
      expect(closed.body.data.map((book: Record<string, any>) => book.seriesPosition)).toEqual([1, 2, 3, 4, 5]);
      const deleted = await booksOf(server(), admin, library.id, true);
      expect(deleted.map((book) => book.seriesPosition)).toEqual([null]);
    });

    test("a deep scan after upgrading applies the rule to an existing catalogue; a normal scan places its books", async () => {
      const root = tempFolder();
      await makeCbz(join(root, "Upgraded", "Upgraded 1.cbz"), { seed: 4001 });
      await makeCbz(join(root, "Upgraded", "Upgraded 2.cbz"), { seed: 4002 });
      await makeCbz(join(root, "Upgraded", "Upgraded 3.cbz"), { seed: 4003, comicInfo: comicInfo({ Series: "Stray Name", Number: 3 }) });
      const library = await createLibrary(server(), admin, { name: `upgraded-${concurrency}`, path: root });
      await scan(server(), admin, library.id);
      // The catalogue as the previous version left it: the first book's series name won, books
      // kept no series name of their own and had no position.
      const books = await booksOf(server(), admin, library.id);
      const seriesId = books[0]!.seriesId;
      await rawQuery(server(), "update series set name = 'Stray Name', name_sort = 'stray name' where id = $1", seriesId);
      for (const book of books) {
        const [row] = await rawQuery(server(), "select metadata from books where id = $1", book.id);
        const metadata = typeof row!.metadata === "string" ? JSON.parse(row!.metadata) : row!.metadata;
        delete metadata.series;
        await rawQuery(server(), "update books set metadata = $1, series_position = null where id = $2", JSON.stringify(metadata), book.id);
      }
      expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", seriesRenamed: 0 });
      expect((await booksOf(server(), admin, library.id)).map((book) => book.seriesPosition).sort()).toEqual([1, 2, 3]);
      expect([...(await seriesNamed(server(), admin, library.id)).keys()]).toEqual(["Stray Name"]);

      expect(await scan(server(), admin, library.id, "deep")).toMatchObject({ status: "completed", seriesRenamed: 1 });
      expect([...(await seriesNamed(server(), admin, library.id)).keys()]).toEqual(["Upgraded"]);
    });
  }, { scanner: { concurrency } });
}

for (const kind of DATABASE_KINDS) {
  describe(`series naming under serve --workers 2 [${kind}]`, () => {
    let instances: Instances | undefined;
    afterAll(async () => {
      await instances?.stop();
    });

    test("the mixed folder keeps its folder name, the tagged folders take their tagged names", async () => {
      instances = await instancesOnOneDatabase(kind, { scanner: { concurrency: 2 } });
      const root = tempFolder();
      // The tagged books first in file order: the order in which a scan met them used to decide.
      await makeCbz(join(root, "Mixed", "Mixed 01.cbz"), { seed: 5001, comicInfo: MIXED[2]!.comicInfo });
      await makeCbz(join(root, "Mixed", "Mixed 02.cbz"), { seed: 5002, comicInfo: MIXED[1]!.comicInfo });
      await makeCbz(join(root, "Mixed", "Mixed 03.cbz"), { seed: 5003 });
      for (let number = 1; number <= 2; number++) {
        await makeCbz(join(root, "Test Manga", `Test Manga v0${number}.cbz`), { seed: 5010 + number });
      }
      await makeCbz(join(root, "Test Manga", "Test Manga v03.cbz"), { seed: 5013, comicInfo: comicInfo({ Series: "Captain Science", Number: 1 }) });
      const server = await instances.start("--workers", "2");
      const call = processClient(server.url, true);
      expect((await call("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD })).status).toBe(201);
      const token = (await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD })).body.token as string;
      const { body: library } = await call("POST", "/api/v1/libraries", token, { name: "workers", path: root });
      const { body: requested } = await call("POST", `/api/v1/libraries/${library.id}/scan`, token);
      await waitFor(async () => {
        const { body } = await call("GET", `/api/v1/libraries/${library.id}/scan-status`, token);
        return body.scanId === requested.scanId && body.status === "completed";
      }, "the scan to complete");
      const { body: series } = await call("GET", `/api/v1/series?libraryId=${library.id}`, token);
      expect(series.data.map((one: Record<string, any>) => one.name).sort()).toEqual(["Mixed", "Test Manga"]);
    }, 90_000);
  });
}
