/**
 * Empty and undecodable pages (issue 30, M2). Mihon's Komga extension lists a book's pages and
 * fetches each (keiyoushi/extensions-source src/all/komga/src/eu/kanade/tachiyomi/extension/
 * all/komga/Komga.kt: `<book>/pages`, then `<book>/pages/{n}` with `Accept: image/*`), and
 * failed to show a page served as `200 image/png` with no bytes. Such a page is now a
 * `page_extraction` error of its book (with its page number) and is served as an image saying
 * so; a book whose every page is empty is `zero_pages`, not READY.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import sharp from "sharp";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { booksOf, createLibrary, realJpeg, scan, tempFolder, writeCbz } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase(
  "Unreadable pages",
  (server) => {
    const reader = { ...basic("reader", PASSWORD), accept: "image/*,*/*;q=0.8" };
    let admin: Record<string, string>;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const session = await adminSession(server());
      admin = bearer(session.token);
      await createUser(server(), session.token, "reader");
      const root = tempFolder();
      writeCbz(join(root, "Mixed", "Mixed 01.cbz"), {
        "page-001.jpg": realJpeg(),
        "page-002.png": new Uint8Array(0),
        "page-003.jpg": new TextEncoder().encode("this is not a JPEG image at all, only text"),
      });
      writeCbz(join(root, "Hollow", "Hollow 01.cbz"), { "page-001.png": new Uint8Array(0) });
      const libraryId = (await createLibrary(server(), admin, { path: root, name: "Pages" })).id;
      expect((await scan(server(), admin, libraryId)).status).toBe("completed");
      for (const book of await booksOf(server(), admin, libraryId)) ids[book.filePath.slice(root.length + 1)] = book.id;
    });

    const pageErrors = async (bookId: string) => {
      const { body } = await server().json("GET", "/api/v1/books/errors?errorType=page_extraction&pageSize=100", undefined, admin);
      return (body.groups as { books: { data: { book: { id: string }; errors: { details: { pageNumber?: number } | null }[] }[] } }[])
        .flatMap((group) => group.books.data)
        .filter((entry) => entry.book.id === bookId)
        .flatMap((entry) => entry.errors.map((error) => error.details?.pageNumber))
        .sort();
    };

    async function page(path: string) {
      const response = await server().fetch(path, { headers: reader });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, type: response.headers.get("content-type"), bytes };
    }

    test("an empty page is recorded at scan, with its number, from the entry's size alone", async () => {
      expect(await pageErrors(ids["Mixed/Mixed 01.cbz"]!)).toEqual([2]);
    });

    test("empty and undecodable pages are served as an image that says so, on REST and Komga; the error names the page", async () => {
      const book = ids["Mixed/Mixed 01.cbz"]!;
      for (const path of [`/api/v1/books/${book}/pages/2`, `/komga/api/v1/books/${book}/pages/2`, `/api/v1/books/${book}/pages/3`, `/komga/api/v1/books/${book}/pages/3`, `/api/v1/books/${book}/pages/3?width=100`]) {
        const answer = await page(path);
        expect({ path, status: answer.status, type: answer.type }).toEqual({ path, status: 200, type: "image/png" });
        const { width, height } = await sharp(answer.bytes).metadata();
        expect({ path, drawn: (width ?? 0) > 0 && (height ?? 0) > 0 }).toEqual({ path, drawn: true });
      }
      const first = await page(`/komga/api/v1/books/${book}/pages/1`);
      expect({ status: first.status, type: first.type, bytes: first.bytes.length }).toEqual({ status: 200, type: "image/jpeg", bytes: realJpeg().length });
      // Recorded once per page, however often it is asked for.
      expect(await pageErrors(book)).toEqual([2, 3]);
    });

    test("a book whose every page is empty is zero_pages and not READY", async () => {
      const book = ids["Hollow/Hollow 01.cbz"]!;
      const komga = (await (await server().fetch(`/komga/api/v1/books/${book}`, { headers: reader })).json()) as { media: { status: string; pagesCount: number } };
      expect(komga.media).toMatchObject({ status: "ERROR", pagesCount: 0 });
      const { body } = await server().json("GET", "/api/v1/books/errors?errorType=zero_pages&pageSize=100", undefined, admin);
      const books = (body.groups as { books: { data: { book: { id: string } }[] } }[]).flatMap((group) => group.books.data.map((entry) => entry.book.id));
      expect(books).toContain(book);
    });
  },
  { komga_api: { enabled: true } },
);
