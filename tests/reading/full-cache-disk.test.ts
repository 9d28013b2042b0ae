/**
 * Thumbnails and the page cache on a disk that fills up and frees again (issue #11, item 7), a
 * small tmpfs of the test's own (the test needs root): a page is served although it cannot be
 * cached; a thumbnail that failed on a full disk is not an analysis error, is made by the next
 * request or the queue after the next scan, and clears earlier thumbnail errors of its book.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { fillDisk, smallDisk, unmountDisks } from "../helpers/disks";
import { booksOf, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

const disk = smallDisk(2, "longbox-cache-disk-");
afterAll(unmountDisks);

const filler = join(disk, "filler");
const thumbnails = join(disk, "thumbnails");
/** Thumbnail files of these books (both database runs share the disk). */
const thumbnailFiles = (books: Record<string, any>[]): string[] => {
  const names = new Set(books.map((book) => `${book.id}.webp`));
  return readdirSync(thumbnails, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && names.has(entry.name))
    .map((entry) => entry.name);
};

forEachDatabase("caches on a full disk", (server) => {
  let admin: Record<string, string>;
  let libraryId: string;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    await makeCbz(join(root, "Saga", "Saga 1.cbz"), { seed: 601, pages: 2 });
    await makeCbz(join(root, "Saga", "Saga 2.cbz"), { seed: 602, pages: 2 });
    libraryId = (await createLibrary(server(), admin, { path: root })).id;
  });
  afterAll(() => rmSync(filler, { force: true }));

  test("on a full disk: pages are served uncached, thumbnails wait and are not analysis errors", async () => {
    fillDisk(filler);
    expect(await scan(server(), admin, libraryId)).toMatchObject({ status: "completed", booksAdded: 2, errors: 0 });
    await server().server.services.thumbnails.idle();
    const [first] = await booksOf(server(), admin, libraryId);
    const page = await server().fetch(`/api/v1/books/${first!.id}/pages/1?width=32`, { headers: admin });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("image/");
    // Not made (and not recorded as the book's fault): its title is drawn instead, for now.
    const thumbnail = await server().fetch(`/api/v1/books/${first!.id}/thumbnail`, { headers: admin });
    expect({ status: thumbnail.status, image: thumbnail.headers.get("content-type")?.startsWith("image/") }).toEqual({ status: 200, image: true });
    await thumbnail.body?.cancel();
    expect((await server().json("GET", "/api/v1/books/errors", undefined, admin)).body.totalBooksWithErrors).toBe(0);
    expect(server().logs.some((line) => line.includes("thumbnail not made, will retry") && line.includes("the disk is full"))).toBe(true);
  });

  test("space returns: the next request makes the thumbnail, the next scan makes the rest, old thumbnail errors go", async () => {
    rmSync(filler);
    const books = await booksOf(server(), admin, libraryId);
    // An entry an older version recorded for the same cause.
    await rawQuery(
      server(),
      "INSERT INTO book_errors (id, book_id, error_type, message, details, occurred_at) VALUES ($1, $2, 'thumbnail', 'ENOSPC: no space left on device', NULL, $3)",
      crypto.randomUUID(),
      books[0]!.id,
      new Date(),
    );
    expect((await server().json("GET", "/api/v1/books/errors", undefined, admin)).body.totalBooksWithErrors).toBe(1);
    expect((await server().fetch(`/api/v1/books/${books[0]!.id}/thumbnail`, { headers: admin })).status).toBe(200);
    expect((await server().json("GET", "/api/v1/books/errors", undefined, admin)).body.totalBooksWithErrors).toBe(0);
    expect(thumbnailFiles(books)).toContain(`${books[0]!.id}.webp`);
    // The other book's job may already have been retried by now (leased jobs retry on their own,
    // with backoff); at the latest the next scan makes it.
    expect(await scan(server(), admin, libraryId)).toMatchObject({ status: "completed", booksAdded: 0, booksUpdated: 0 });
    await server().server.services.thumbnails.idle();
    expect(thumbnailFiles(books)).toHaveLength(2);
  });
}, { files: { thumbnail_dir: thumbnails, page_cache_dir: join(disk, "pages") } });
