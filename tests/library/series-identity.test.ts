/**
 * A scan writes a series from each of its books' identities (folder, embedded metadata), once
 * per different identity within the scan: the books that carry only part of the metadata
 * must each still add theirs, whatever order the scan meets them in.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("Series identity during a scan", (server) => {
  test("metadata carried by different books of one series all reach the series in one scan", async () => {
    const admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    await makeCbz(join(root, "Accumulated", "Accumulated #001.cbz"), { seed: 31, comicInfo: comicInfo({ Publisher: "Kept Press" }) });
    await makeCbz(join(root, "Accumulated", "Accumulated #002.cbz"), { seed: 32, comicInfo: comicInfo({ Year: 1999 }) });
    await makeCbz(join(root, "Accumulated", "Accumulated #003.cbz"), { seed: 33 });
    const library = await createLibrary(server(), admin, { name: "accumulated", path: root });
    expect((await scan(server(), admin, library.id)).status).toBe("completed");
    const books = await booksOf(server(), admin, library.id);
    expect(books).toHaveLength(3);
    expect(new Set(books.map((book) => book.seriesId)).size).toBe(1);
    const series = await server().json("GET", `/api/v1/series/${books[0]!.seriesId}`, undefined, admin);
    expect(series.body).toMatchObject({ name: "Accumulated", publisher: "Kept Press", year: 1999 });
  });
  // One book at a time: two books met at once would both write the series whatever the scan remembers.
}, { scanner: { concurrency: 1 } });
