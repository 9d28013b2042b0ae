/**
 * A series its books give no name (no series name in any of them) is named after its first
 * book as the scan grouped it: the file's own title, else its file name; never the book's
 * editable title. An admin retitling that book used to rename the series at the next
 * settlement (the edit itself, or the next scan). Both databases.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("series named after a book", (server) => {
  let admin: Record<string, string>;
  let libraryId: string;

  const seriesNames = async () =>
    ((await server().json("GET", `/api/v1/series?libraryId=${libraryId}&pageSize=50`, undefined, admin)).body.data as { name: string }[]).map((series) => series.name).sort();
  const bookOf = async (seriesName: string) =>
    ((await server().json("GET", `/api/v1/books?libraryId=${libraryId}&pageSize=50`, undefined, admin)).body.data as { id: string; seriesName: string }[]).find(
      (book) => book.seriesName === seriesName,
    )!.id;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    // At the library's root: each book is a series of its own name (no folder to name it).
    await makeCbz(join(root, "lonely-tale.cbz"), { seed: 1, pages: 2, comicInfo: comicInfo({ Title: "Lonely Tale" }) });
    await makeCbz(join(root, "bare-file.cbz"), { seed: 2, pages: 2 });
    libraryId = (await createLibrary(server(), admin, { name: "Loose", path: root })).id;
    expect((await scan(server(), admin, libraryId)).status).toBe("completed");
  });

  test("retitling the book renames neither its series nor, after a rescan, anything else", async () => {
    expect(await seriesNames()).toEqual(["Lonely Tale", "bare-file"]);
    for (const [series, title] of [["Lonely Tale", "An Admin's Title"], ["bare-file", "Another Admin Title"]] as const) {
      expect((await server().json("PATCH", `/api/v1/books/${await bookOf(series)}`, { title }, admin)).status).toBe(200);
    }
    expect(await seriesNames()).toEqual(["Lonely Tale", "bare-file"]);
    for (const mode of ["normal", "deep"] as const) {
      expect((await scan(server(), admin, libraryId, mode)).status).toBe("completed");
      expect(await seriesNames()).toEqual(["Lonely Tale", "bare-file"]);
    }
  });
});
