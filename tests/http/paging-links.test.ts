/**
 * Paging links of the REST lists behind a reverse proxy that serves Longbox under a path prefix
 * and strips it (application.base_url https://reader.example.net/longbox): the links keep the
 * prefix, as OPDS links do, so that a client following them reaches Longbox again.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";

const BASE_URL = "https://reader.example.net/longbox/";

forEachDatabase(
  "REST paging links under application.base_url's path",
  (server) => {
    let admin: Record<string, string>;
    beforeAll(async () => {
      const token = (await adminSession(server())).token;
      admin = bearer(token);
      for (const name of ["ulla", "ugo"]) await createUser(server(), token, name);
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
