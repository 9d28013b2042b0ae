/**
 * The pages a scan records for a book, as GET /books/{id}/pages lists them: every page of a long
 * book (more pages than SQLite takes bound parameters in one statement), each with its own
 * name, type, size and dimensions, and replaced whole when the file changes.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("Page records", (server) => {
  test("a book of 1,200 pages is recorded with every page, and a rewritten file replaces them", async () => {
    const admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    const file = await makeCbz(join(root, "Long", "Long #001.cbz"), { pages: 1200, seed: 7 });
    const entries = unzipSync(new Uint8Array(await Bun.file(file).arrayBuffer()));
    const library = await createLibrary(server(), admin, { name: "long", path: root });
    expect((await scan(server(), admin, library.id)).status).toBe("completed");
    const [book] = await booksOf(server(), admin, library.id);
    expect(book!.pageCount).toBe(1200);

    const listed = await server().json("GET", `/api/v1/books/${book!.id}/pages`, undefined, admin);
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1200);
    const expected = Object.entries(entries).map(([fileName, bytes], index) => ({
      number: index + 1,
      fileName,
      mediaType: "image/jpeg",
      width: 64,
      height: 96,
      size: bytes.byteLength,
    }));
    expect(listed.body).toEqual(expected);

    // Same path, other content: a normal rescan re-reads it and its old pages go.
    writeFileSync(file, await Bun.file(await makeCbz(join(tempFolder(), "short.cbz"), { pages: 2, seed: 8 })).bytes());
    expect((await scan(server(), admin, library.id)).status).toBe("completed");
    const relisted = await server().json("GET", `/api/v1/books/${book!.id}/pages`, undefined, admin);
    expect(relisted.body.map((page: { number: number }) => page.number)).toEqual([1, 2]);
  }, 60_000);
});
