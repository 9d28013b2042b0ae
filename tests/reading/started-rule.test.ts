/**
 * One rule for "started" (src/db/repositories/catalogue-filters.ts, progressStarted): a book
 * counts as being read once its reader got past the first page (or into an EPUB); a book opened
 * for a glance, page 1 only, is still unread. Every surface that asks agrees, on both databases:
 * the IN_PROGRESS and UNREAD read-status filters (books and series, Komga API), Komga's on deck,
 * the series' counts (REST), the web's "Keep reading" and "On deck" shelves. Before, only
 * "continue reading" applied it: a glance made a book IN_PROGRESS in the filters and took its
 * series off on deck.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer, createUser, login, PASSWORD, webSignIn } from "../helpers/auth";
import { comicInfo, createLibrary, libraryRoot, makeCbz, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const BOOKS = { Orbit: 3, Crypt: 2, Nova: 1 };

forEachDatabase("the started rule", (server) => {
  const ids: Record<string, string> = {};
  const seriesIds: Record<string, string> = {};
  let reader: Record<string, string>;
  const basic = { authorization: `Basic ${btoa(`reader:${PASSWORD}`)}` };

  beforeAll(async () => {
    const session = await adminSession(server());
    const admin = bearer(session.token);
    const root = libraryRoot(server(), "Started");
    let seed = 1;
    for (const [series, count] of Object.entries(BOOKS)) {
      for (let number = 1; number <= count; number++) {
        await makeCbz(join(root, series, `${series} ${number}.cbz`), { seed: seed++, pages: 3, comicInfo: comicInfo({ Series: series, Number: number, Title: `${series} ${number}` }) });
      }
    }
    const library = await createLibrary(server(), admin, { name: "Started", path: root });
    await scanToCompletion(server(), session.token, library.id);
    for (const book of (await server().json("GET", `/api/v1/books?libraryId=${library.id}&pageSize=100`, undefined, admin)).body.data as { id: string; title: string; seriesId: string; seriesName: string }[]) {
      ids[book.title] = book.id;
      seriesIds[book.seriesName] = book.seriesId;
    }
    await createUser(server(), session.token, "reader");
    reader = bearer((await login(server(), "reader")).token);
    const progress = async (title: string, body: Record<string, unknown>) =>
      expect((await server().json("PUT", `/api/v1/books/${ids[title]}/progress`, body, reader)).status).toBe(200);
    await progress("Orbit 1", { completed: true });
    await progress("Orbit 2", { page: 1 }); // opened for a few seconds
    await progress("Crypt 1", { page: 1 });
    await progress("Crypt 2", { page: 2 });
    await progress("Nova 1", { page: 1 });
  });

  const komga = async (path: string) => {
    const response = await server().fetch(`/komga/api/v1${path}`, { headers: basic });
    expect(response.status).toBe(200);
    return ((await response.json()) as { content: { name?: string; metadata?: { title: string } }[] }).content.map((item) => item.metadata?.title ?? item.name).sort();
  };

  test("a glance is not in progress in the read-status filters, nor in Komga's on deck", async () => {
    expect(await komga("/books?read_status=IN_PROGRESS")).toEqual(["Crypt 2"]);
    expect(await komga("/books?read_status=UNREAD")).toEqual(["Crypt 1", "Nova 1", "Orbit 2", "Orbit 3"]);
    expect(await komga("/books/ondeck")).toEqual(["Crypt 2"]);
    expect(await komga("/series?read_status=UNREAD")).toEqual(["Nova"]);
    expect(await komga("/series?read_status=IN_PROGRESS")).toEqual(["Crypt", "Orbit"]);
  });

  test("the series' counts leave a glance among the unread", async () => {
    const orbit = (await server().json("GET", `/api/v1/series/${seriesIds.Orbit}`, undefined, reader)).body;
    expect(orbit).toMatchObject({ booksReadCount: 1, booksInProgressCount: 0, booksUnreadCount: 2 });
  });

  test("the web's shelves: Keep reading holds the started book, On deck the next book of a series with only a glance in it", async () => {
    const cookie = await webSignIn(server(), "reader");
    const shelf = async (row: string) => {
      const response = await server().fetch(`/shelves/${row}`, { headers: { cookie } });
      expect(response.status).toBe(200);
      const html = await response.text();
      return Object.keys(ids).filter((title) => html.includes(`>${title}<`)).sort();
    };
    expect(await shelf("keep-reading")).toEqual(["Crypt 2"]);
    expect(await shelf("on-deck")).toEqual(["Orbit 2"]);
  });
}, { komga_api: { enabled: true } });
