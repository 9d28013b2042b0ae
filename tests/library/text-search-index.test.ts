/**
 * PostgreSQL's trigram indexes after a scan (issue 14): GIN's fast update parks new rows in a
 * pending list that every text search reads through until autovacuum merges it; with the default
 * limit (4 MB) that list held a whole fresh scan, and searches on a freshly scanned catalogue
 * were several times slower. Migration 0013 limits it to 64 kB (8 pages): whoever writes past
 * that merges it. Read from the index's metapage (pageinspect, shipped with PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { startTestServer, type TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

const BOOKS = 150;
/** 64 kB of 8 kB pages. */
const PENDING_PAGES_LIMIT = 8;
/** Long titles: a couple of hundred trigrams a book, so the books' entries fill far more than 64 kB. */
const TITLE_WORDS = "amber basilisk cobalt dirigible ember falconry gossamer harbinger isthmus juniper kestrel lantern meridian nocturne obsidian".split(" ");

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("text search indexes after a scan [postgres]", () => {
  let server: TestServer;
  let admin: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer("postgres");
    admin = bearer((await adminSession(server)).token);
    await rawQuery(server, "CREATE EXTENSION IF NOT EXISTS pageinspect");
    // Autovacuum also empties pending lists: kept away, so that only the limit can have.
    await rawQuery(server, "ALTER TABLE books SET (autovacuum_enabled = off)");
  }, 60_000);
  afterAll(async () => server?.stop());

  const pendingPages = async (index: string) => {
    const [row] = await rawQuery(server, `SELECT n_pending_pages FROM gin_metapage_info(get_raw_page($1, 0))`, index);
    return Number(row!.n_pending_pages);
  };

  test("a scan leaves at most 64 kB in the trigram index's pending list, and searches find the books", async () => {
    const root = tempFolder();
    for (let number = 1; number <= BOOKS; number++) {
      // Each title its own order of the words: many distinct trigrams per book.
      const words = TITLE_WORDS.map((_, index) => TITLE_WORDS[(index * 7 + number) % TITLE_WORDS.length]).join(" ");
      await makeCbz(join(root, "Chronicles", `${words} ${number}.cbz`), { seed: number, pages: 1 });
    }
    const library = await createLibrary(server, admin, { name: "chronicles", path: root });
    expect((await scan(server, admin, library.id)).status).toBe("completed");

    expect(await pendingPages("books_search_text_trgm_idx")).toBeLessThanOrEqual(PENDING_PAGES_LIMIT);
    const { status, body } = await server.json("GET", "/api/v1/books?q=chronicles&pageSize=500", undefined, admin);
    expect(status).toBe(200);
    expect(body.total).toBe(BOOKS);
  }, 120_000);
});
