/**
 * Paging across a series of 120 books, in both OPDS versions: walking from the first page along
 * `next` reaches every book exactly once in reading order, in pages of 50, 50 and 20, with
 * first/last/previous links that agree; and `pageSize` is honoured.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, PASSWORD } from "../helpers/auth";
import { createLibrary, makeCbz, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { linkOf, parseFeed } from "./support";

const BOOKS = 120;

forEachDatabase("OPDS paging over a series of 120 books", (server) => {
  const admin = basic("admin", PASSWORD);
  let seriesId: string;
  /** Book ids in reading order (by number). */
  let readingOrder: string[];

  beforeAll(async () => {
    const token = (await adminSession(server())).token;
    const root = join(server().dir, "libraries", "Long");
    // Created in shuffled order, so that only the number decides the order in the feeds.
    const numbers = Array.from({ length: BOOKS }, (_, index) => ((index * 37) % BOOKS) + 1);
    for (const number of numbers) {
      await makeCbz(join(root, "Long Run", `Long Run ${String(number).padStart(3, "0")}.cbz`), { pages: 1, seed: number });
    }
    const library = await createLibrary(server(), bearer(token), { name: "Long", path: root });
    await scanToCompletion(server(), token, library.id);
    const books = (await server().json("GET", `/api/v1/books?libraryId=${library.id}&sort=number,asc&pageSize=500`, undefined, bearer(token))).body.data;
    expect(books).toHaveLength(BOOKS);
    seriesId = books[0].seriesId;
    readingOrder = books.map((book: { id: string }) => book.id);
  });

  const fetchOk = async (href: string) => {
    const response = await server().fetch(href, { headers: admin });
    expect({ href, status: response.status }).toEqual({ href, status: 200 });
    return response;
  };

  test("OPDS 1.2: next walks all 120 books once, in pages of 50, 50, 20; first, last and previous agree", async () => {
    const start = `${server().url}/opds/v1.2/series/${seriesId}`;
    const pageSizes: number[] = [];
    const seen: string[] = [];
    const visited: string[] = [];
    let previousSelf: string | undefined;
    for (let href: string | undefined = start; href; ) {
      const feed = parseFeed(await (await fetchOk(href)).text());
      visited.push(linkOf(feed, "self")!.href);
      pageSizes.push(feed.entry?.length ?? 0);
      seen.push(...(feed.entry ?? []).map((entry) => entry.id.replace("urn:uuid:", "")));
      expect(linkOf(feed, "first")!.href).toBe(`${start}?page=1`);
      expect(linkOf(feed, "last")!.href).toBe(`${start}?page=3`);
      expect(linkOf(feed, "previous")?.href).toBe(previousSelf);
      expect(feed["opensearch:totalResults"]).toBe(String(BOOKS));
      previousSelf = linkOf(feed, "self")!.href;
      href = linkOf(feed, "next")?.href;
    }
    expect(visited).toEqual([`${start}?page=1`, `${start}?page=2`, `${start}?page=3`]);
    expect(pageSizes).toEqual([50, 50, 20]);
    expect(seen).toEqual(readingOrder);
  });

  test("OPDS 2: next walks all 120 publications once, with the paging metadata", async () => {
    const start = `${server().url}/opds/v2/series/${seriesId}`;
    const seen: string[] = [];
    const pages: unknown[] = [];
    for (let href: string | undefined = start; href; ) {
      const feed = (await (await fetchOk(href)).json()) as { metadata: Record<string, number>; links: { rel: string; href: string }[]; publications: { metadata: { identifier: string } }[] };
      const link = (rel: string) => feed.links.find((candidate) => candidate.rel === rel)?.href;
      pages.push({ ...feed.metadata, count: feed.publications.length, first: link("first"), last: link("last") });
      seen.push(...feed.publications.map((publication) => publication.metadata.identifier.replace("urn:uuid:", "")));
      href = link("next");
    }
    const page = (currentPage: number, count: number) => ({
      title: "Long Run",
      identifier: `urn:uuid:${seriesId}`,
      modified: expect.any(String),
      numberOfItems: BOOKS,
      itemsPerPage: 50,
      currentPage,
      count,
      first: `${start}?page=1`,
      last: `${start}?page=3`,
    });
    expect(pages).toEqual([page(1, 50), page(2, 50), page(3, 20)]);
    expect(seen).toEqual(readingOrder);
  });

  test("pageSize is honoured and kept in the paging links; a page past the end is empty", async () => {
    const feed = parseFeed(await (await fetchOk(`${server().url}/opds/v1.2/series/${seriesId}?pageSize=7&page=2`)).text());
    expect(feed.entry!.map((entry) => entry.id.replace("urn:uuid:", ""))).toEqual(readingOrder.slice(7, 14));
    expect(linkOf(feed, "last")!.href).toBe(`${server().url}/opds/v1.2/series/${seriesId}?pageSize=7&page=18`);
    expect(linkOf(feed, "next")!.href).toBe(`${server().url}/opds/v1.2/series/${seriesId}?pageSize=7&page=3`);
    const beyond = parseFeed(await (await fetchOk(`${server().url}/opds/v1.2/series/${seriesId}?page=9`)).text());
    expect(beyond.entry).toBeUndefined();
    expect(linkOf(beyond, "previous")!.href).toBe(`${server().url}/opds/v1.2/series/${seriesId}?page=3`);
    expect((await server().fetch(`/opds/v1.2/series/${seriesId}?pageSize=501`, { headers: admin })).status).toBe(400);
  });
});
