/**
 * Collections and read lists through the Komga-compatible API (issue 33), on both databases,
 * for an admin and three users whose sharing tags differ (tests/lists/support.ts). Shapes as
 * Komga 1.x writes them: CollectionDto and ReadListDto (gotson/komga
 * interfaces/api/rest/dto/CollectionDto.kt and ReadListDto.kt; Komelia's
 * komga_client/.../readlist/KomgaReadList.kt decodes id, name, summary, ordered, bookIds,
 * createdDate, lastModifiedDate, filtered), routes as ReadListController.kt maps them
 * (`{id}/books/{bookId}/next`, `{id}/read-progress/tachiyomi` with `lastBookRead`).
 */
import { Type as T } from "@sinclair/typebox";
import { beforeAll, expect, test } from "bun:test";
import { forEachDatabase } from "../helpers/server";
import { CollectionPage, decode, Instant, KomgaBook, KomgaSeries, SpringPage } from "../komga/schemas";
import { buildListWorld, SEES, SERIES, type ListWorld, type SeriesKey, type UserKey } from "./support";

const USERS: UserKey[] = ["admin", "alice", "bob", "carol"];
const ReadList = T.Object({
  id: T.String(),
  name: T.String(),
  summary: T.String(),
  ordered: T.Boolean(),
  bookIds: T.Array(T.String()),
  createdDate: Instant,
  lastModifiedDate: Instant,
  filtered: T.Boolean(),
});

forEachDatabase(
  "collections and read lists (Komga API)",
  (server) => {
    let world: ListWorld;
    let collectionId: string;
    let readListId: string;
    const COLLECTION: SeriesKey[] = ["Gamma", "Alpha", "Beta"];
    const READ_LIST: [SeriesKey, 0 | 1][] = [["Alpha", 0], ["Gamma", 0], ["Beta", 0], ["Alpha", 1], ["Beta", 1]];
    const komga = (user: UserKey, method: string, path: string, body?: unknown) => server().json(method, `/komga${path}`, body, world.headers[user]);
    const bookId = ([key, index]: [SeriesKey, 0 | 1]) => world.series[key].books[index];
    const visibleSeries = (user: UserKey) => COLLECTION.filter((key) => SEES[user].includes(key)).map((key) => world.series[key].id);
    const visibleBooks = (user: UserKey) => READ_LIST.filter(([key]) => SEES[user].includes(key)).map(bookId);

    beforeAll(async () => {
      world = await buildListWorld(server());
      const admin = world.headers.admin;
      collectionId = (await server().json("POST", "/api/v1/collections", { name: "Family", ordered: true, seriesIds: COLLECTION.map((key) => world.series[key].id) }, admin)).body.id;
      readListId = (await server().json("POST", "/api/v1/readlists", { name: "Event", bookIds: READ_LIST.map(bookId) }, admin)).body.id;
    });

    test("each user's collections show only their series, in order, with filtered set when some are hidden", async () => {
      for (const user of USERS) {
        const page = decode(CollectionPage, (await komga(user, "GET", "/api/v1/collections?unpaged=true")).body);
        const family = page.content.find((collection: { id: string }) => collection.id === collectionId);
        expect(family).toMatchObject({ name: "Family", ordered: true, seriesIds: visibleSeries(user), filtered: visibleSeries(user).length < 3 });
        const series = decode(SpringPage(KomgaSeries), (await komga(user, "GET", `/api/v1/collections/${collectionId}/series?page=0&size=20`)).body);
        expect(series.content.map((entry: { id: string }) => entry.id)).toEqual(visibleSeries(user));
        expect(series.totalElements).toBe(visibleSeries(user).length);
        for (const key of COLLECTION) {
          const holding = await komga(user, "GET", `/api/v1/series/${world.series[key].id}/collections`);
          if (SEES[user].includes(key)) expect(holding.body.map((entry: { id: string }) => entry.id)).toEqual([collectionId]);
          else expect(holding.status).toBe(404);
        }
      }
    });

    test("each user's read list holds only their books; next and previous skip the others", async () => {
      for (const user of USERS) {
        const list = decode(ReadList, (await komga(user, "GET", `/api/v1/readlists/${readListId}`)).body);
        expect(list.bookIds).toEqual(visibleBooks(user));
        expect(list.filtered).toBe(visibleBooks(user).length < READ_LIST.length);
        const books = decode(SpringPage(KomgaBook), (await komga(user, "GET", `/api/v1/readlists/${readListId}/books`)).body);
        expect(books.content.map((book: { id: string }) => book.id)).toEqual(visibleBooks(user));
        const ids = visibleBooks(user);
        for (let index = 0; index < ids.length; index++) {
          const next = await komga(user, "GET", `/api/v1/readlists/${readListId}/books/${ids[index]}/next`);
          const previous = await komga(user, "GET", `/api/v1/readlists/${readListId}/books/${ids[index]}/previous`);
          expect(next.status === 200 ? decode(KomgaBook, next.body).id : next.status).toBe(ids[index + 1] ?? 404);
          expect(previous.status === 200 ? previous.body.id : previous.status).toBe(ids[index - 1] ?? 404);
        }
        const holding = await komga(user, "GET", `/api/v1/books/${ids[0]}/readlists`);
        expect(holding.body.map((entry: { id: string }) => entry.id)).toEqual([readListId]);
      }
      expect((await komga("bob", "GET", `/api/v1/books/${world.series.Gamma.books[0]}/readlists`)).status).toBe(404);
    });

    test("a list's thumbnail is its first visible item's", async () => {
      for (const user of ["bob", "carol"] as const) {
        const thumbnail = await server().fetch(`/komga/api/v1/collections/${collectionId}/thumbnail`, { headers: world.headers[user] });
        expect(thumbnail.status).toBe(200);
        const first = await server().fetch(`/komga/api/v1/series/${visibleSeries(user)[0]}/thumbnail`, { headers: world.headers[user] });
        expect(Buffer.from(await thumbnail.arrayBuffer()).equals(Buffer.from(await first.arrayBuffer()))).toBe(true);
        const bookThumbnail = await server().fetch(`/komga/api/v1/readlists/${readListId}/thumbnail`, { headers: world.headers[user] });
        const firstBook = await server().fetch(`/komga/api/v1/books/${visibleBooks(user)[0]}/thumbnail`, { headers: world.headers[user] });
        expect(Buffer.from(await bookThumbnail.arrayBuffer()).equals(Buffer.from(await firstBook.arrayBuffer()))).toBe(true);
      }
    });

    test("the Mihon tracker's read-progress/tachiyomi counts and marks by the user's position in the list", async () => {
      const put = await komga("carol", "PUT", `/api/v1/readlists/${readListId}/read-progress/tachiyomi`, { lastBookRead: 2 });
      expect(put.status).toBe(204);
      const carol = (await komga("carol", "GET", `/api/v1/readlists/${readListId}/read-progress/tachiyomi`)).body;
      // Carol sees Gamma 1, Beta 1, Beta 2: the first two are read now.
      expect(carol).toEqual({ booksCount: 3, booksReadCount: 2, booksUnreadCount: 1, booksInProgressCount: 0, lastReadContinuousIndex: 2 });
      const bob = (await komga("bob", "GET", `/api/v1/readlists/${readListId}/read-progress/tachiyomi`)).body;
      expect(bob).toEqual({ booksCount: 2, booksReadCount: 0, booksUnreadCount: 2, booksInProgressCount: 0, lastReadContinuousIndex: 0 });
    });

    test("collectionId / readListId conditions and collection_id / readlist_id filters: the caller's visible members of lists they are shown", async () => {
      // gotson/komga SeriesSearchHelper.kt / BookSearchHelper.kt: a series in the collection, a book in the read list.
      const searched = async (user: UserKey, kind: "series" | "books", condition: unknown) => {
        const response = await komga(user, "POST", `/api/v1/${kind}/list?unpaged=true`, { condition });
        expect(response.status).toBe(200);
        return (response.body.content as { id: string }[]).map((entry) => entry.id).sort();
      };
      const listed = async (user: UserKey, path: string) => {
        const response = await komga(user, "GET", path);
        expect(response.status).toBe(200);
        return (response.body.content as { id: string }[]).map((entry) => entry.id).sort();
      };
      const bobs = (await komga("bob", "POST", "/api/v1/collections", { name: "Bob's filter", ordered: false, seriesIds: [world.series.Alpha.id] })).body.id as string;
      const bobsBooks = (await komga("bob", "POST", "/api/v1/readlists", { name: "Bob's reading", ordered: true, bookIds: [bookId(["Alpha", 1])] })).body.id as string;
      for (const user of USERS) {
        const series = visibleSeries(user).toSorted();
        const books = visibleBooks(user).toSorted();
        expect(await searched(user, "series", { collectionId: { operator: "is", value: collectionId } })).toEqual(series);
        expect(await listed(user, `/api/v1/series?unpaged=true&collection_id=${collectionId}`)).toEqual(series);
        expect(await searched(user, "books", { readListId: { operator: "is", value: readListId } })).toEqual(books);
        expect(await listed(user, `/api/v1/books?unpaged=true&readlist_id=${readListId}`)).toEqual(books);
        // isNot: every visible series / book outside the list.
        const outside = await searched(user, "series", { allOf: [{ collectionId: { operator: "isNot", value: collectionId } }, { collectionId: { operator: "isNot", value: bobs } }] });
        const all = await listed(user, "/api/v1/series?unpaged=true");
        expect(outside).toEqual(all.filter((id) => !series.includes(id) && !(user === "bob" && id === world.series.Alpha.id)));
        // Bob's own lists hold their items for him only: to anyone else they hold nothing (an admin included).
        const own = user === "bob";
        expect(await searched(user, "series", { collectionId: { operator: "is", value: bobs } })).toEqual(own ? [world.series.Alpha.id] : []);
        expect(await listed(user, `/api/v1/series?unpaged=true&collection_id=${bobs}`)).toEqual(own ? [world.series.Alpha.id] : []);
        expect(await searched(user, "books", { readListId: { operator: "is", value: bobsBooks } })).toEqual(own ? [bookId(["Alpha", 1])] : []);
        expect(await listed(user, `/api/v1/books?unpaged=true&readlist_id=${bobsBooks}`)).toEqual(own ? [bookId(["Alpha", 1])] : []);
        // Either of two lists; a series' books in a read list.
        expect(await listed(user, `/api/v1/series?unpaged=true&collection_id=${collectionId},${bobs}`)).toEqual(own ? [world.series.Alpha.id] : series);
        const alphaBooks = `/api/v1/series/${world.series.Alpha.id}/books?unpaged=true&readlist_id=${readListId}`;
        if (SEES[user].includes("Alpha")) expect(await listed(user, alphaBooks)).toEqual(books.filter((id) => world.series.Alpha.books.includes(id)));
        else expect((await komga(user, "GET", alphaBooks)).status).toBe(404);
      }
    });

    test("filter values asked for a collection or a read list are those of its series the caller may see", async () => {
      const pressOf = (keys: SeriesKey[]) => keys.map((key) => `${key} Press`).sort();
      for (const user of USERS) {
        const ofCollection = await komga(user, "GET", `/api/v1/publishers?collection_id=${collectionId}`);
        expect({ user, publishers: [...ofCollection.body].sort() }).toEqual({ user, publishers: pressOf(COLLECTION.filter((key) => SEES[user].includes(key))) });
        const ofReadList = await komga(user, "GET", `/api/v1/publishers?readlist_id=${readListId}`);
        expect({ user, publishers: [...ofReadList.body].sort() }).toEqual({ user, publishers: pressOf(SERIES.filter((key) => SEES[user].includes(key))) });
      }
      // A list nobody shows the caller (or no list at all) narrows to nothing.
      expect((await komga("bob", "GET", `/api/v1/publishers?collection_id=${crypto.randomUUID()}`)).body).toEqual([]);
    });

    test("Komga's create, change and delete; only an admin changes a shared list", async () => {
      const created = await komga("admin", "POST", "/api/v1/readlists", { name: "Made in Komelia", summary: "", ordered: true, bookIds: [bookId(["Beta", 1]), bookId(["Beta", 0])] });
      expect(created.status).toBe(200);
      decode(ReadList, created.body);
      expect((await komga("alice", "PATCH", `/api/v1/readlists/${created.body.id}`, { name: "Taken" })).status).toBe(403);
      expect((await komga("admin", "PATCH", `/api/v1/readlists/${created.body.id}`, { bookIds: [bookId(["Beta", 0]), bookId(["Beta", 1])] })).status).toBe(204);
      expect((await komga("carol", "GET", `/api/v1/readlists/${created.body.id}`)).body.bookIds).toEqual([bookId(["Beta", 0]), bookId(["Beta", 1])]);
      expect((await komga("admin", "DELETE", `/api/v1/readlists/${created.body.id}`)).status).toBe(204);
      expect((await komga("carol", "GET", `/api/v1/readlists/${created.body.id}`)).status).toBe(404);
      const collection = await komga("bob", "POST", "/api/v1/collections", { name: "Bob's", ordered: false, seriesIds: [world.series.Alpha.id] });
      expect(collection.status).toBe(200);
      expect((await komga("alice", "GET", `/api/v1/collections/${collection.body.id}`)).status).toBe(404);
    });
  },
  { komga_api: { enabled: true } },
);
