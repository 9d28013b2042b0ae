/**
 * A page is the archive entry's exact bytes, whether it is served straight from the file (a
 * stored ZIP entry, zero-copy) or inflated (a deflated entry): both paths, compared to the
 * entries as fflate reads them.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync, zipSync } from "fflate";
import sharp from "sharp";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, createLibrary, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("page bytes", (server) => {
  let admin: Record<string, string>;
  const archives: Record<string, Uint8Array> = {};

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    const pages: Record<string, Uint8Array> = {};
    for (let index = 1; index <= 3; index++) {
      const image = sharp({ create: { width: 90, height: 120, channels: 3, background: "#000", noise: { type: "gaussian", mean: 100, sigma: 30 } } });
      pages[`${index}.${index === 2 ? "png" : "jpg"}`] = new Uint8Array(await (index === 2 ? image.png() : image.jpeg()).toBuffer());
    }
    for (const [name, level] of [["stored", 0], ["deflated", 9]] as const) {
      const bytes = zipSync({ ...pages, "note.txt": new TextEncoder().encode(name) }, { level });
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, `${name}.cbz`), bytes);
      archives[name] = bytes;
    }
    await scan(server(), admin, (await createLibrary(server(), admin, { path: root })).id);
  });

  for (const kind of ["stored", "deflated"]) {
    test(`${kind} entries: every page is the entry's exact bytes, with its own media type`, async () => {
      const books = await booksOf(server(), admin, (await server().json("GET", "/api/v1/libraries", undefined, admin)).body[0].id);
      const book = books.find((candidate) => candidate.title === kind)!;
      const entries = unzipSync(archives[kind]!);
      for (const [number, name, mediaType] of [[1, "1.jpg", "image/jpeg"], [2, "2.png", "image/png"], [3, "3.jpg", "image/jpeg"]] as const) {
        const response = await server().fetch(`/api/v1/books/${book.id}/pages/${number}`, { headers: admin });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe(mediaType);
        expect(new Uint8Array(await response.arrayBuffer())).toEqual(entries[name]!);
      }
    });
  }
});
