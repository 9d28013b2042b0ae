/**
 * Paths the REST API hands out (paging links, the EPUB manifest's hrefs) behind a reverse proxy
 * that serves Longbox under a path prefix and strips it (application.base_url
 * https://reader.example.net/longbox): they keep the prefix, as OPDS links do, so that a client
 * following them reaches Longbox again.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";
import { scannedLibrary, type ScannedLibrary } from "../reading/support";

const BASE_URL = "https://reader.example.net/longbox/";

forEachDatabase(
  "REST paths under application.base_url's path",
  (server) => {
    let admin: Record<string, string>;
    let library: ScannedLibrary;
    beforeAll(async () => {
      // An admin and a reader, with an EPUB; one more user makes three, one per page below.
      library = await scannedLibrary(server(), { "Novels/book.epub": "epub/stump/book.epub" });
      admin = bearer(library.adminToken);
      await createUser(server(), library.adminToken, "ulla");
      for (const name of ["red", "green", "blue"]) {
        expect((await server().json("POST", "/api/v1/sharing-tags", { name }, admin)).status).toBe(201);
      }
    });

    test("first, last, self, next and prev carry the prefix and keep the query", async () => {
      // The proxy has stripped /longbox: the request reaches Longbox as /api/v1/users.
      const users = await server().json("GET", "/api/v1/users?pageSize=1&page=2", undefined, admin);
      expect(users.status).toBe(200);
      expect(users.body.links).toEqual({
        first: "/longbox/api/v1/users?pageSize=1&page=1",
        last: "/longbox/api/v1/users?pageSize=1&page=3",
        self: "/longbox/api/v1/users?pageSize=1&page=2",
        next: "/longbox/api/v1/users?pageSize=1&page=3",
        prev: "/longbox/api/v1/users?pageSize=1&page=1",
      });
      const tags = await server().json("GET", "/api/v1/sharing-tags?pageSize=2", undefined, admin);
      expect(tags.body.links).toMatchObject({ self: "/longbox/api/v1/sharing-tags?pageSize=2&page=1", next: "/longbox/api/v1/sharing-tags?pageSize=2&page=2" });
      for (const path of ["/api/v1/books?pageSize=5&deleted=false", "/api/v1/series?pageSize=5"]) {
        const list = await server().json("GET", path, undefined, admin);
        expect(list.status).toBe(200);
        for (const link of [list.body.links.first, list.body.links.last, list.body.links.self]) expect(link).toStartWith(`/longbox${path.split("?")[0]}?`);
      }
    });

    test("a link resolved against the public address is the public URL of the next page, as OPDS links are", async () => {
      const users = await server().json("GET", "/api/v1/users?pageSize=1", undefined, admin);
      expect(new URL(users.body.links.next, BASE_URL).href).toBe("https://reader.example.net/longbox/api/v1/users?pageSize=1&page=2");
      const feed = await (await server().fetch("/opds/v2/catalog", { headers: basic("admin", PASSWORD) })).json();
      expect(feed.links.find((link: { rel: string }) => link.rel === "self").href).toStartWith("https://reader.example.net/longbox/opds/");
    });

    test("the EPUB manifest's hrefs carry the prefix", async () => {
      const id = library.books["book.epub"]!.id;
      const manifest = await server().json("GET", `/api/v1/books/${id}/manifest`, undefined, admin);
      expect(manifest.status).toBe(200);
      expect(manifest.body.links).toContainEqual({ rel: "self", href: `/longbox/api/v1/books/${id}/manifest`, type: "application/webpub+json" });
      const hrefs = [...manifest.body.readingOrder, ...manifest.body.resources].map((link: { href: string }) => link.href);
      expect(hrefs.length).toBeGreaterThan(0);
      for (const href of hrefs) expect(href).toStartWith(`/longbox/api/v1/books/${id}/resource/`);
      // Without the prefix (as the proxy forwards it), each href is a resource Longbox serves.
      const first = await server().fetch(hrefs[0]!.slice("/longbox".length), { headers: admin });
      expect(first.status).toBe(200);
    });
  },
  { application: { base_url: BASE_URL } },
);

forEachDatabase("REST paging links without application.base_url", (server) => {
  test("the links are the request's own path", async () => {
    const admin = bearer((await adminSession(server())).token);
    const users = await server().json("GET", "/api/v1/users?pageSize=1", undefined, admin);
    expect(users.body.links).toMatchObject({ first: "/api/v1/users?pageSize=1&page=1", next: null });
  });
});
