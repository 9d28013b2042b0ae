/**
 * Settling series after a scan (src/library/series-settlement.ts) writes only what changed: a
 * deep rescan of an unchanged library settles every series and must take no transaction for
 * any of them (each used to cost one, BEGIN IMMEDIATE on SQLite: the writer's lock, per series).
 * Counted with the database's own ledger of committed transactions, on both databases: two
 * libraries of the same 40 books, one in 20 series and one in 2, cost the same deep rescan.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const BOOKS = 40;

forEachDatabase("series settlement writes", (server) => {
  let admin: Record<string, string>;
  const libraries: Record<number, string> = {};

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    for (const seriesCount of [20, 2]) {
      const root = tempFolder();
      for (let book = 0; book < BOOKS; book++) {
        const series = book % seriesCount;
        const number = Math.floor(book / seriesCount) + 1;
        await makeCbz(join(root, `Series ${series}`, `Series ${series} ${number}.cbz`), {
          seed: seriesCount * 100 + book,
          pages: 1,
          comicInfo: comicInfo({ Series: `Series ${series}`, Number: number, Year: 2000 + series }),
        });
      }
      libraries[seriesCount] = (await createLibrary(server(), admin, { name: `Settled ${seriesCount}`, path: root })).id;
      expect((await scan(server(), admin, libraries[seriesCount]!)).status).toBe("completed");
    }
  });

  /** Transactions committed by a deep rescan of the library, thumbnails included. */
  const deepRescan = async (libraryId: string) => {
    const { database, thumbnails } = server().server.services;
    await thumbnails.idle();
    const before = database.transactionOutcomes().committed;
    const rescan = await scan(server(), admin, libraryId, "deep");
    expect(rescan.status).toBe("completed");
    expect(rescan.seriesRenamed).toBe(0);
    await thumbnails.idle();
    return database.transactionOutcomes().committed - before;
  };

  test("a deep rescan of an unchanged library commits no transaction per series", async () => {
    const manySeries = await deepRescan(libraries[20]!);
    const fewSeries = await deepRescan(libraries[2]!);
    // The scan looks each series up once (its insert-if-new): 18 more for the 18 more series.
    // Settling them must add nothing; before, it added one per series (38 on SQLite, 42 on
    // PostgreSQL in all; 17 with the fix).
    expect(manySeries - fewSeries).toBeLessThan(18 + 5);
    const series = (await server().json("GET", `/api/v1/series?libraryId=${libraries[20]}&pageSize=100`, undefined, admin)).body.data as { name: string; year: number }[];
    expect(series).toHaveLength(20);
    expect(series.every((entry) => entry.year === 2000 + Number(entry.name.split(" ")[1]))).toBe(true);
  });
});
