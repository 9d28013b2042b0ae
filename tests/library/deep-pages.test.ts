/**
 * Deep pages of the default book order skip whole series by the counts series keep (issue 14):
 * every page, at every page size, in both directions, for an admin and for a reader limited by
 * a sharing tag, with and without a library filter and for soft-deleted books, must be exactly
 * the matching slice of the whole list read as one page. The library has series of different
 * sizes, two series with the same name in two libraries (the same sort name), soft-deleted
 * books, and a book moved to another series' folder (its place in the order follows it).
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

type Headers = Record<string, string>;

/** Series folder -> how many books it starts with. */
const MAIN_SERIES: Record<string, number> = { Alpha: 7, Beta: 1, Delta: 12, Epsilon: 3, Zeta: 5, Omega: 4 };

forEachDatabase("deep pages of the default book order", (server) => {
  let admin: Headers;
  let reader: Headers;
  let mainId: string;

  /** One page's book ids and total. */
  const page = async (headers: Headers, query: string, number: number, size: number): Promise<{ ids: string[]; total: number }> => {
    const { status, body } = await server().json("GET", `/api/v1/books?${query}&page=${number}&pageSize=${size}`, undefined, headers);
    expect(status).toBe(200);
    return { ids: body.data.map((book: { id: string }) => book.id), total: body.total };
  };

  /**
   * Every page at `size`, one after the other, equals the whole list read at once with the same
   * total, and the page past the end is empty with that total too.
   */
  const expectPagesAgree = async (headers: Headers, query: string) => {
    const { body: whole } = await server().json("GET", `/api/v1/books?${query}&pageSize=500`, undefined, headers);
    const all: string[] = whole.data.map((book: { id: string }) => book.id);
    expect(all.length).toBe(whole.total);
    for (const size of [1, 2, 3, 5, 7, 50]) {
      const pages = Math.ceil(all.length / size);
      for (let number = 1; number <= pages; number++) {
        expect(await page(headers, query, number, size)).toEqual({ ids: all.slice((number - 1) * size, number * size), total: all.length });
      }
      expect(await page(headers, query, pages + 1, size)).toEqual({ ids: [], total: all.length });
    }
    return whole.data as { seriesName: string; title: string }[];
  };

  beforeAll(async () => {
    const session = await adminSession(server());
    admin = bearer(session.token);
    const mainRoot = tempFolder();
    let seed = 1;
    for (const [name, count] of Object.entries(MAIN_SERIES)) {
      for (let number = 1; number <= count; number++) await makeCbz(join(mainRoot, name, `${name} ${String(number).padStart(3, "0")}.cbz`), { seed: seed++, pages: 1 });
    }
    const otherRoot = tempFolder();
    for (let number = 1; number <= 4; number++) await makeCbz(join(otherRoot, "Delta", `Delta ${number}.cbz`), { seed: 500 + number, pages: 1 });
    mainId = (await createLibrary(server(), admin, { name: "main", path: mainRoot })).id;
    const otherId = (await createLibrary(server(), admin, { name: "other", path: otherRoot })).id;
    await scan(server(), admin, mainId);
    await scan(server(), admin, otherId);
    // Soft-deleted books (two of Alpha), and one of Zeta moved into Beta's folder.
    const parking = tempFolder();
    rmSync(join(mainRoot, "Alpha", "Alpha 002.cbz"));
    renameSync(join(mainRoot, "Alpha", "Alpha 005.cbz"), join(parking, "Alpha 005.cbz"));
    mkdirSync(join(mainRoot, "Beta"), { recursive: true });
    renameSync(join(mainRoot, "Zeta", "Zeta 001.cbz"), join(mainRoot, "Beta", "Zeta 001.cbz"));
    expect((await scan(server(), admin, mainId)).booksDeleted).toBe(2);

    // A reader allowed a tag that Delta (of the main library) and Zeta carry.
    await createUser(server(), session.token, "reader");
    reader = bearer((await login(server(), "reader")).token);
    const tagId = (await server().json("POST", "/api/v1/sharing-tags", { name: "some" }, admin)).body.id;
    const { body: series } = await server().json("GET", `/api/v1/series?libraryId=${mainId}&pageSize=500`, undefined, admin);
    for (const entry of series.data.filter((candidate: { name: string }) => ["Delta", "Zeta"].includes(candidate.name))) {
      expect((await server().json("PUT", `/api/v1/series/${entry.id}/sharing-tags`, { sharingTagIds: [tagId] }, admin)).status).toBe(200);
    }
    const readerId = (await server().json("GET", "/api/v1/users?pageSize=500", undefined, admin)).body.data.find((user: any) => user.username === "reader").id;
    expect((await server().json("PUT", `/api/v1/users/${readerId}/sharing-tags`, { sharingTagId: tagId, accessMode: "allow" }, admin)).status).toBe(200);
  });

  test("an admin's pages, both directions: the slices of the whole list, in series order", async () => {
    const ascending = await expectPagesAgree(admin, "sort=series,asc");
    expect(ascending.map((book) => book.seriesName)).toEqual([
      ...Array(5).fill("Alpha"),
      ...Array(2).fill("Beta"),
      ...Array(16).fill("Delta"),
      ...Array(3).fill("Epsilon"),
      ...Array(4).fill("Omega"),
      ...Array(4).fill("Zeta"),
    ]);
    // The moved book sorts with the series it is in now.
    expect(ascending.filter((book) => book.seriesName === "Beta").map((book) => book.title).sort()).toEqual(["Beta 001", "Zeta 001"]);
    const descending = await expectPagesAgree(admin, "sort=series,desc");
    expect(descending.map((book) => book.seriesName)).toEqual(ascending.map((book) => book.seriesName).reverse());
  });

  test("filtered by library, soft-deleted books, and the default sort without a sort parameter", async () => {
    expect((await expectPagesAgree(admin, `libraryId=${mainId}`)).length).toBe(30);
    expect((await expectPagesAgree(admin, `libraryId=${mainId}&deleted=true`)).map((book) => book.title)).toEqual(["Alpha 002", "Alpha 005"]);
  });

  test("a text search's pages and totals, past the last page too", async () => {
    const found = await expectPagesAgree(admin, "q=delta");
    expect(found.map((book) => book.seriesName)).toEqual(Array(16).fill("Delta"));
    expect((await expectPagesAgree(reader, "q=delta")).length).toBe(12);
  });

  test("a reader's pages hold only the series the reader's grant admits", async () => {
    const seen = await expectPagesAgree(reader, "sort=series,asc");
    expect(seen.map((book) => book.seriesName)).toEqual([...Array(12).fill("Delta"), ...Array(4).fill("Zeta")]);
    await expectPagesAgree(reader, "sort=series,desc");
  });
});
