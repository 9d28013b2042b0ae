/**
 * Numeric query parameters are integers in their range or a 400 with the contract's error body,
 * on the REST API and in the OPDS feeds alike (issue #10, item 4).
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, PASSWORD } from "../helpers/auth";
import { createLibrary, makeCbz, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const BAD_PAGING = [
  "pageSize=501",
  "pageSize=100000",
  "pageSize=0",
  "pageSize=-5",
  "page=0",
  "page=-1",
  "page=-1&pageSize=-1",
  "page=1e20",
  "page=99999999999999999999",
  "page=1.5",
  "page=abc",
  "page=",
  "page=0x10",
];

forEachDatabase("numeric query parameters", (server) => {
  let token: string;
  let bookId: string;
  let seriesId: string;

  beforeAll(async () => {
    token = (await adminSession(server())).token;
    const root = join(server().dir, "libraries", "Params");
    for (let number = 1; number <= 3; number++) await makeCbz(join(root, "Params", `Params ${number}.cbz`), { pages: 1, seed: number });
    const library = await createLibrary(server(), bearer(token), { name: "Params", path: root });
    await scanToCompletion(server(), token, library.id);
    const books = (await server().json("GET", `/api/v1/books?libraryId=${library.id}`, undefined, bearer(token))).body.data;
    bookId = books[0].id;
    seriesId = books[0].seriesId;
  });

  const expectBadRequest = async (path: string, headers: Record<string, string>) => {
    const response = await server().fetch(path, { headers });
    const text = await response.text();
    expect({ path, status: response.status }).toEqual({ path, status: 400 });
    const body = JSON.parse(text);
    expect({ path, error: body.error, message: typeof body.message }).toEqual({ path, error: "BadRequest", message: "string" });
  };

  test("REST lists refuse paging outside 1 <= page, 1 <= pageSize <= 500", async () => {
    for (const list of ["/api/v1/books", "/api/v1/series", `/api/v1/series/${seriesId}/books`, "/api/v1/users", "/api/v1/sharing-tags"]) {
      for (const query of BAD_PAGING) await expectBadRequest(`${list}?${query}`, bearer(token));
    }
  });

  test("OPDS feeds refuse the same paging", async () => {
    for (const feed of ["/opds/v1.2/series", "/opds/v2/series", `/opds/v1.2/series/${seriesId}`, "/opds/v1.2/recent"]) {
      for (const query of BAD_PAGING) await expectBadRequest(`${feed}?${query}`, basic("admin", PASSWORD));
    }
  });

  test("valid paging is honoured with numbers, and links stay finite", async () => {
    const response = await server().json("GET", "/api/v1/books?page=2&pageSize=2", undefined, bearer(token));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ page: 2, pageSize: 2, total: 3, totalPages: 2 });
    expect(response.body.data).toHaveLength(1);
    expect(response.body.links.last).toContain("page=2");
    const maxed = await server().json("GET", "/api/v1/books?pageSize=500", undefined, bearer(token));
    expect(maxed.body).toMatchObject({ page: 1, pageSize: 500 });
  });

  test("page widths are 16..4096 on the REST page route", async () => {
    for (const width of ["100000", "15", "0", "-20", "1e3", "200.5", "wide", "4097"]) {
      await expectBadRequest(`/api/v1/books/${bookId}/pages/1?width=${width}`, bearer(token));
    }
    const scaled = await server().fetch(`/api/v1/books/${bookId}/pages/1?width=16`, { headers: bearer(token) });
    expect(scaled.status).toBe(200);
  });
});
