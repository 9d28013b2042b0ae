/**
 * The default book order's stored keys (series sort name, number with unnumbered last,
 * lower-cased title): a new book gets them in its insert, a re-catalogued one recomputes them
 * from its stored row (refreshOrderKeys). Both must agree, also for titles SQL and JavaScript
 * lower-case differently (SQLite's lower() folds ASCII only), or a deep scan would reorder
 * books that did not change.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

forEachDatabase("default-order keys of scanned books", (server) => {
  test("a fresh scan stores the keys a deep scan recomputes from the stored rows", async () => {
    const admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    const books = [
      ["Zeta Saga/one.cbz", { Title: "Élan Vital", Number: 2 }],
      ["Zeta Saga/two.cbz", { Title: "alpha", Number: 1 }],
      ["Zeta Saga/three.cbz", { Title: "Omega" }],
      ["Ärger/four.cbz", { Title: "ÜBER Alles" }],
    ] as const;
    for (const [index, [path, fields]] of books.entries()) {
      await makeCbz(join(root, path), { seed: 700 + index, pages: 1, comicInfo: comicInfo(fields) });
    }
    const library = await createLibrary(server(), admin, { name: "Order keys", path: root });
    const keys = async () =>
      (
        await rawQuery(
          server(),
          `SELECT b.title, b.order_series, b.order_number, b.order_title, s.name_sort FROM books b JOIN series s ON s.id = b.series_id
           WHERE b.library_id = $1`,
          library.id,
        )
      ).sort((a, b) => (String(a.title) < String(b.title) ? -1 : 1));
    expect((await scan(server(), admin, library.id)).status).toBe("completed");
    const fresh = await keys();
    expect(fresh).toHaveLength(4);
    for (const row of fresh) expect(row.order_series).toBe(row.name_sort);
    expect(fresh.map((row) => [row.title, Number(row.order_number)])).toEqual([
      ["Omega", 1e15],
      ["alpha", 1],
      ["Élan Vital", 2],
      ["ÜBER Alles", 1e15],
    ]);
    expect(fresh.find((row) => row.title === "alpha")?.order_title).toBe("alpha");

    expect((await scan(server(), admin, library.id, "deep")).status).toBe("completed");
    expect(await keys()).toEqual(fresh);
  });
});
