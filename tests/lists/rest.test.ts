/**
 * Collections, read lists and want-to-read through the REST API (issue 33), on both databases:
 * who sees and changes which list, order and reorder, paging, bad input, and the sharing tags
 * inside every list for three users (tests/lists/support.ts describes the world).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { forEachDatabase } from "../helpers/server";
import { buildListWorld, SEES, SERIES, type ListWorld, type SeriesKey, type UserKey } from "./support";

const USERS: UserKey[] = ["admin", "alice", "bob", "carol"];

forEachDatabase("collections and read lists (REST)", (server) => {
  let world: ListWorld;
  const as = (user: UserKey, method: string, path: string, body?: unknown) => server().json(method, path, body, world.headers[user]);
  const seriesIds = (keys: SeriesKey[]) => keys.map((key) => world.series[key].id);
  /** Book n (1 or 2) of each series, in the order given. */
  const bookIds = (entries: [SeriesKey, 0 | 1][]) => entries.map(([key, index]) => world.series[key].books[index]);
  const visible = (user: UserKey, keys: SeriesKey[]) => keys.filter((key) => SEES[user].includes(key));

  beforeAll(async () => {
    world = await buildListWorld(server());
  });

  describe("a collection an admin shares", () => {
    let id: string;
    beforeAll(async () => {
      const created = await as("admin", "POST", "/api/v1/collections", { name: "Family", ordered: true, seriesIds: seriesIds(["Gamma", "Alpha", "Beta"]) });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: "Family", ordered: true, shared: true, editable: true, seriesCount: 3 });
      id = created.body.id;
    });

    test("each user sees only the series they may see, in the collection's order, and counts only those", async () => {
      for (const user of USERS) {
        const expected = visible(user, ["Gamma", "Alpha", "Beta"]);
        const one = await as(user, "GET", `/api/v1/collections/${id}`);
        expect(one.status).toBe(200);
        expect(one.body.seriesCount).toBe(expected.length);
        expect(one.body.editable).toBe(user === "admin");
        const items = await as(user, "GET", `/api/v1/collections/${id}/series`);
        expect(items.body.data.map((series: { id: string }) => series.id)).toEqual(seriesIds(expected));
        expect(items.body.total).toBe(expected.length);
        const all = await as(user, "GET", "/api/v1/collections");
        expect(all.body.data.find((list: { id: string }) => list.id === id)?.seriesCount).toBe(expected.length);
      }
    });

    test("a shared collection holding nothing a user may see is not shown to them, nor its name", async () => {
      const hidden = await as("admin", "POST", "/api/v1/collections", { name: "Only Gamma", seriesIds: seriesIds(["Gamma"]) });
      for (const user of USERS) {
        const shown = SEES[user].includes("Gamma");
        expect((await as(user, "GET", `/api/v1/collections/${hidden.body.id}`)).status).toBe(shown ? 200 : 404);
        const names = (await as(user, "GET", "/api/v1/collections")).body.data.map((list: { name: string }) => list.name);
        expect(names.includes("Only Gamma")).toBe(shown);
        expect((await as(user, "GET", `/api/v1/collections?q=only`)).body.total).toBe(shown ? 1 : 0);
      }
    });

    test("only an admin changes it; the series of a page follow the new order; unordered is by name", async () => {
      expect((await as("alice", "PATCH", `/api/v1/collections/${id}`, { name: "Mine" })).status).toBe(403);
      expect((await as("bob", "DELETE", `/api/v1/collections/${id}`)).status).toBe(403);
      expect((await as("carol", "POST", `/api/v1/collections/${id}/series`, { seriesIds: seriesIds(["Beta"]) })).status).toBe(403);
      const reordered = await as("admin", "PATCH", `/api/v1/collections/${id}`, { seriesIds: seriesIds(["Beta", "Gamma", "Alpha"]) });
      expect(reordered.status).toBe(200);
      const page = await as("admin", "GET", `/api/v1/collections/${id}/series?page=2&pageSize=1`);
      expect(page.body).toMatchObject({ page: 2, pageSize: 1, total: 3, totalPages: 3 });
      expect(page.body.data.map((series: { id: string }) => series.id)).toEqual(seriesIds(["Gamma"]));
      expect(page.body.links.next).toContain("page=3");
      await as("admin", "PATCH", `/api/v1/collections/${id}`, { ordered: false });
      const byName = await as("admin", "GET", `/api/v1/collections/${id}/series`);
      expect(byName.body.data.map((series: { id: string }) => series.id)).toEqual(seriesIds(SERIES));
    });
  });

  describe("a read list an admin shares", () => {
    let id: string;
    const order: [SeriesKey, 0 | 1][] = [["Alpha", 0], ["Gamma", 0], ["Beta", 0], ["Alpha", 1], ["Beta", 1]];
    beforeAll(async () => {
      const created = await as("admin", "POST", "/api/v1/readlists", { name: "Crossover", bookIds: bookIds(order) });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ ordered: true, shared: true, bookCount: 5 });
      id = created.body.id;
    });

    test("each user gets the books they may see, in order, and next/previous skip the others", async () => {
      for (const user of USERS) {
        const expected = order.filter(([key]) => SEES[user].includes(key));
        const books = await as(user, "GET", `/api/v1/readlists/${id}/books`);
        expect(books.body.data.map((book: { id: string }) => book.id)).toEqual(bookIds(expected));
        expect((await as(user, "GET", `/api/v1/readlists/${id}`)).body.bookCount).toBe(expected.length);
        for (let index = 0; index < expected.length; index++) {
          const here = bookIds([expected[index]!])[0];
          const next = await as(user, "GET", `/api/v1/readlists/${id}/books/${here}/next`);
          const previous = await as(user, "GET", `/api/v1/readlists/${id}/books/${here}/previous`);
          if (index + 1 < expected.length) expect(next.body.id).toBe(bookIds([expected[index + 1]!])[0]);
          else expect(next.status).toBe(404);
          if (index > 0) expect(previous.body.id).toBe(bookIds([expected[index - 1]!])[0]);
          else expect(previous.status).toBe(404);
        }
      }
      // A book the user may not see is not a place in the list for them.
      expect((await as("bob", "GET", `/api/v1/readlists/${id}/books/${world.series.Beta.books[0]}/next`)).status).toBe(404);
    });

    test("books are added after the last one, removed one at a time, and unknown ids are named", async () => {
      const added = await as("admin", "POST", `/api/v1/readlists/${id}/books`, { bookIds: bookIds([["Gamma", 1], ["Alpha", 0]]) });
      expect(added.body.bookCount).toBe(6);
      const books = await as("admin", "GET", `/api/v1/readlists/${id}/books`);
      expect(books.body.data.at(-1).id).toBe(world.series.Gamma.books[1]);
      expect((await as("admin", "DELETE", `/api/v1/readlists/${id}/books/${world.series.Gamma.books[1]}`)).status).toBe(204);
      expect((await as("admin", "DELETE", `/api/v1/readlists/${id}/books/${world.series.Gamma.books[1]}`)).status).toBe(404);
      const unknown = "00000000-0000-4000-8000-000000000000";
      const refused = await as("admin", "POST", `/api/v1/readlists/${id}/books`, { bookIds: [unknown] });
      expect(refused.status).toBe(422);
      expect(refused.body.details.unknown).toEqual([unknown]);
      expect((await as("admin", "GET", `/api/v1/readlists/${id}`)).body.bookCount).toBe(5);
    });
  });

  describe("users' own lists", () => {
    test("are private: nobody else sees them, and a user cannot share one", async () => {
      const own = await as("alice", "POST", "/api/v1/collections", { name: "Alice's", seriesIds: seriesIds(["Alpha"]) });
      expect(own.status).toBe(201);
      expect(own.body).toMatchObject({ shared: false, editable: true, seriesCount: 1 });
      for (const user of ["admin", "bob", "carol"] as const) {
        expect((await as(user, "GET", `/api/v1/collections/${own.body.id}`)).status).toBe(404);
        expect((await as(user, "PATCH", `/api/v1/collections/${own.body.id}`, { name: "x" })).status).toBe(404);
      }
      expect((await as("alice", "POST", "/api/v1/readlists", { name: "Shared", shared: true })).status).toBe(403);
      // Names are unique per owner: another user may use the same one.
      expect((await as("alice", "POST", "/api/v1/collections", { name: "alice's" })).status).toBe(409);
      expect((await as("bob", "POST", "/api/v1/collections", { name: "Alice's" })).status).toBe(201);
      expect((await as("alice", "POST", "/api/v1/collections", { name: "   " })).status).toBe(422);
    });

    test("concurrent creations of one name: exactly one wins, the others are 409 (the database decides)", async () => {
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => as("alice", "POST", "/api/v1/readlists", { name: "Race" })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
      expect((await as("alice", "GET", "/api/v1/readlists?q=race")).body.total).toBe(1);
    });

    test("a user cannot put in a series they may not see, and its id is named as unknown", async () => {
      const refused = await as("bob", "POST", "/api/v1/collections", { name: "Sneaky", seriesIds: seriesIds(["Alpha", "Gamma"]) });
      expect(refused.status).toBe(422);
      expect(refused.body.details.unknown).toEqual(seriesIds(["Gamma"]));
      expect((await as("bob", "GET", "/api/v1/collections?q=sneaky")).body.total).toBe(0);
    });

    test("series hidden from the owner later stay in the list through the owner's reorder", async () => {
      const own = await as("carol", "POST", "/api/v1/collections", { name: "Carol's", ordered: true, seriesIds: seriesIds(["Gamma", "Beta"]) });
      const deny = await as("admin", "PUT", `/api/v1/users/${world.userIds.carol}/sharing-tags`, { sharingTagId: world.tagIds.T2, accessMode: "deny" });
      expect(deny.status).toBe(200);
      try {
        expect((await as("carol", "GET", `/api/v1/collections/${own.body.id}`)).body.seriesCount).toBe(1);
        expect((await as("carol", "PATCH", `/api/v1/collections/${own.body.id}`, { seriesIds: seriesIds(["Beta"]) })).status).toBe(200);
      } finally {
        await as("admin", "DELETE", `/api/v1/users/${world.userIds.carol}/sharing-tags/${world.tagIds.T2}`);
      }
      const items = await as("carol", "GET", `/api/v1/collections/${own.body.id}/series`);
      expect(items.body.data.map((series: { id: string }) => series.id)).toEqual(seriesIds(["Beta", "Gamma"]));
    });

    test("deleting a list removes it", async () => {
      const own = await as("bob", "POST", "/api/v1/readlists", { name: "Gone", bookIds: bookIds([["Alpha", 0]]) });
      expect(own.body.shared).toBe(false);
      expect((await as("bob", "DELETE", `/api/v1/readlists/${own.body.id}`)).status).toBe(204);
      expect((await as("bob", "GET", `/api/v1/readlists/${own.body.id}`)).status).toBe(404);
    });
  });

  test("want-to-read holds each user's series and shows only those they may still see", async () => {
    expect((await as("bob", "PUT", `/api/v1/want-to-read/${world.series.Alpha.id}`)).status).toBe(204);
    expect((await as("bob", "PUT", `/api/v1/want-to-read/${world.series.Alpha.id}`)).status).toBe(204);
    expect((await as("bob", "PUT", `/api/v1/want-to-read/${world.series.Gamma.id}`)).status).toBe(404);
    for (const key of ["Beta", "Gamma"] as const) expect((await as("carol", "PUT", `/api/v1/want-to-read/${world.series[key].id}`)).status).toBe(204);
    expect((await as("bob", "GET", "/api/v1/want-to-read")).body.data.map((series: { id: string }) => series.id)).toEqual(seriesIds(["Alpha"]));
    expect((await as("alice", "GET", "/api/v1/want-to-read")).body.total).toBe(0);
    await as("admin", "PUT", `/api/v1/users/${world.userIds.carol}/sharing-tags`, { sharingTagId: world.tagIds.T2, accessMode: "deny" });
    try {
      const wanted = await as("carol", "GET", "/api/v1/want-to-read");
      expect(wanted.body.total).toBe(1);
      expect(wanted.body.data.map((series: { id: string }) => series.id)).toEqual(seriesIds(["Beta"]));
    } finally {
      await as("admin", "DELETE", `/api/v1/users/${world.userIds.carol}/sharing-tags/${world.tagIds.T2}`);
    }
    expect((await as("carol", "DELETE", `/api/v1/want-to-read/${world.series.Beta.id}`)).status).toBe(204);
    expect((await as("carol", "DELETE", `/api/v1/want-to-read/${world.series.Beta.id}`)).status).toBe(404);
  });

  test("every route needs credentials and is in the OpenAPI document", async () => {
    expect((await server().json("GET", "/api/v1/collections")).status).toBe(401);
    expect((await server().json("GET", "/api/v1/want-to-read")).status).toBe(401);
    const document = (await server().json("GET", "/api/docs/json")).body;
    for (const path of ["/api/v1/collections", "/api/v1/collections/{id}/series", "/api/v1/readlists/{id}/books/{bookId}/{direction}", "/api/v1/want-to-read/{id}"]) {
      expect(Object.keys(document.paths)).toContain(path);
    }
  });
});
