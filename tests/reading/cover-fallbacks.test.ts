/**
 * Every visible book and series has a picture (issue 30, M1): a book's cover image, else its
 * first page, else an image of its title; a series' uploaded cover, else the picture of its
 * first book that has one, else an image of its name. On the REST API, the Komga API and OPDS
 * alike, where Mihon's Komga extension asks for `<series url>/thumbnail` (keiyoushi/extensions-
 * source src/all/komga/.../dto/Dto.kt, the manga's thumbnail_url) and treats a 404 as no cover.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { sha256 } from "../helpers/digests";
import { booksOf, createLibrary, makeCbz, placeFixture, realJpeg, scan, tempFolder, writeCbz } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase(
  "Cover fallbacks",
  (server) => {
    const reader = basic("reader", PASSWORD);
    const ids: Record<string, string> = {};
    const series: Record<string, string> = {};
    let admin: Record<string, string>;

    beforeAll(async () => {
      const session = await adminSession(server());
      admin = bearer(session.token);
      await createUser(server(), session.token, "reader");
      const root = tempFolder();
      // A series whose first book cannot be read at all, its second can.
      await makeCbz(join(root, "Broken First", "Broken First 01.cbz"), { pages: 0, seed: 1 });
      await makeCbz(join(root, "Broken First", "Broken First 02.cbz"), { pages: 2, seed: 2 });
      // A series whose first dozen books cannot be read, its last can.
      for (let number = 1; number <= 12; number++) await makeCbz(join(root, "Mostly Broken", `Mostly Broken ${String(number).padStart(2, "0")}.cbz`), { pages: 0, seed: 100 + number });
      await makeCbz(join(root, "Mostly Broken", "Mostly Broken 13.cbz"), { pages: 2, seed: 113 });
      // Two READY EPUBs without any image: no cover, no page picture.
      placeFixture("epub/readium/epub30-test-0201.epub", join(root, "Plain Text", "one.epub"));
      placeFixture("epub/idpf-built/hefty-water.epub", join(root, "Plain Text", "two.epub"));
      // A comic whose declared cover (ComicInfo's FrontCover, the second page) is damaged: a JPEG
      // header, then nothing an image decoder reads; its first page is fine.
      const damaged = new Uint8Array(4096).fill(0x41);
      damaged.set([0xff, 0xd8, 0xff, 0xe0]);
      const frontCoverIsSecond = '<?xml version="1.0"?><ComicInfo><Pages><Page Image="1" Type="FrontCover"/></Pages></ComicInfo>';
      writeCbz(join(root, "Damaged Cover", "Damaged Cover 01.cbz"), {
        "page-001.jpg": realJpeg(2),
        "page-002.jpg": damaged,
        "ComicInfo.xml": new TextEncoder().encode(frontCoverIsSecond),
      });
      const libraryId = (await createLibrary(server(), admin, { path: root, name: "Covers" })).id;
      expect((await scan(server(), admin, libraryId)).status).toBe("completed");
      await server().server.services.thumbnails.idle();
      for (const book of await booksOf(server(), admin, libraryId)) ids[book.filePath.slice(root.length + 1)] = book.id;
      const listed = (await server().json("GET", "/api/v1/series?pageSize=50", undefined, admin)).body.data as { id: string; name: string }[];
      for (const entry of listed) series[entry.name] = entry.id;
    });

    async function image(path: string) {
      const response = await server().fetch(path, { headers: { ...reader, accept: "image/*,*/*;q=0.8" } });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, type: response.headers.get("content-type"), sha: sha256(bytes), size: bytes.length };
    }

    test("a series takes the picture of its first book that has one, on REST, Komga and OPDS", async () => {
      const second = await image(`/api/v1/books/${ids["Broken First/Broken First 02.cbz"]}/thumbnail`);
      expect(second).toMatchObject({ status: 200 });
      for (const path of [`/api/v1/series/${series["Broken First"]}/thumbnail`, `/komga/api/v1/series/${series["Broken First"]}/thumbnail`]) {
        expect({ path, ...(await image(path)) }).toEqual({ path, ...second });
      }
      const feed = await server().fetch(`/opds/v1.2/series/${series["Broken First"]}`, { headers: reader });
      expect(feed.status).toBe(200);
      const links = [...(await feed.text()).matchAll(/href="([^"]*thumbnail[^"]*)"/g)].map((match) => match[1]!.replaceAll("&amp;", "&"));
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect({ link, status: (await image(new URL(link, "http://x").pathname)).status }).toEqual({ link, status: 200 });
    });

    test("a series whose first books have no pages finds its picture without a database write per book", async () => {
      const { database } = server().server.services;
      const last = await image(`/api/v1/books/${ids["Mostly Broken/Mostly Broken 13.cbz"]}/thumbnail`);
      const before = database.transactionOutcomes().committed;
      const answer = await image(`/api/v1/series/${series["Mostly Broken"]}/thumbnail`);
      expect(answer).toEqual(last);
      // Before: each pageless book first dropped its queued thumbnail job, a transaction each (12).
      expect(database.transactionOutcomes().committed - before).toBe(0);
    });

    test("a book with nothing readable, and a series of such books, show an image of their title", async () => {
      for (const path of [
        `/api/v1/books/${ids["Broken First/Broken First 01.cbz"]}/thumbnail`,
        `/komga/api/v1/books/${ids["Plain Text/one.epub"]}/thumbnail`,
        `/api/v1/books/${ids["Plain Text/two.epub"]}/thumbnail`,
        `/komga/api/v1/series/${series["Plain Text"]}/thumbnail`,
      ]) {
        const answer = await image(path);
        expect({ path, status: answer.status, image: answer.type?.startsWith("image/"), nonEmpty: answer.size > 100 }).toEqual({ path, status: 200, image: true, nonEmpty: true });
      }
      const one = await image(`/api/v1/books/${ids["Plain Text/one.epub"]}/thumbnail`);
      const two = await image(`/api/v1/books/${ids["Plain Text/two.epub"]}/thumbnail`);
      expect(one.sha).not.toBe(two.sha); // each says its own title
      // Revalidated like any thumbnail: the same text and size, the same ETag, a 304.
      const path = `/komga/api/v1/series/${series["Plain Text"]}/thumbnail`;
      const first = await server().fetch(path, { headers: reader });
      await first.body?.cancel();
      const etag = first.headers.get("etag")!;
      const again = await server().fetch(path, { headers: { ...reader, "if-none-match": etag } });
      expect({ status: again.status, etag: again.headers.get("etag") }).toEqual({ status: 304, etag });
    });

    test("a damaged cover image gives way to the first page", async () => {
      const book = ids["Damaged Cover/Damaged Cover 01.cbz"]!;
      const answer = await image(`/api/v1/books/${book}/thumbnail`);
      expect(answer.status).toBe(200);
      const { body } = await server().json("GET", "/api/v1/books/errors?errorType=thumbnail&pageSize=100", undefined, admin);
      const withThumbnailErrors = (body.groups as { books: { data: { book: { id: string } }[] } }[]).flatMap((group) => group.books.data.map((entry) => entry.book.id));
      expect(withThumbnailErrors).not.toContain(book);
      expect(withThumbnailErrors).toContain(ids["Plain Text/one.epub"]!); // the check can see a thumbnail error
    });

    test("hidden and unknown ids stay 404", async () => {
      for (const path of [`/api/v1/books/${crypto.randomUUID()}/thumbnail`, `/komga/api/v1/series/${crypto.randomUUID()}/thumbnail`]) {
        expect({ path, status: (await image(path)).status }).toEqual({ path, status: 404 });
      }
    });
  },
  { komga_api: { enabled: true } },
);
