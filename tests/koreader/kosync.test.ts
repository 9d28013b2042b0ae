/**
 * KOReader progress sync spoken exactly as KOReader's kosync plugin speaks it: its Accept
 * header, `x-auth-user`/`x-auth-key` (the MD5 of the key typed into KOReader), its bodies, and
 * the statuses it takes for success (register 201; auth, push and pull 200) and failure. One
 * position is shared with the REST API and OPDS.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { basic, PASSWORD } from "../helpers/auth";
import { forEachDatabase, startTestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";
import { linkOf, parseFeed } from "../opds/support";
import { bearer, hideSeriesFrom, scan, scannedLibrary, type ScannedLibrary } from "../reading/support";
import { fixture } from "../helpers/fixtures";
import { referencePartialMd5 } from "./support";

const LAYOUT = {
  "Tall/tall.pdf": "pdf/stump/tall.pdf",
  "Cix/test_cix.pdf": "pdf/comicbox/test_cix.pdf",
  "Leaves/leaves.epub": "epub/stump/leaves.epub",
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Hidden/Hidden #001.cbz": "cbz/stump/book-image-format-test.zip",
};

/** KOReader's published partial MD5s of its test files (spec/unit/util_spec.lua). */
const TALL_PDF = "41cce710f34e5ec21315e19c99821415";
const LEAVES_EPUB = "59d481d168cca6267322f150c5f6a2a3";

const md5 = (text: string) => createHash("md5").update(text).digest("hex");
/** A device id as KOReader makes one: 32 uppercase hex digits. */
const DEVICE_ID = "0123456789ABCDEF0123456789ABCDEF";

/** The headers every kosync request carries, plus the credentials of authenticated calls. */
function kosyncHeaders(user?: string, key?: string): Record<string, string> {
  return {
    accept: "application/vnd.koreader.v1+json",
    ...(user !== undefined ? { "x-auth-user": user } : {}),
    ...(key !== undefined ? { "x-auth-key": key } : {}),
  };
}

forEachDatabase("KOReader sync", (server) => {
  let library: ScannedLibrary;
  let reader: Record<string, string>;
  const SYNC_KEY = "paper-white-sync-key";
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
    reader = bearer(library.readerToken);
    await hideSeriesFrom(server(), library.readerId, library.books["Hidden #001.cbz"]!.seriesId);
    expect((await server().json("PUT", "/api/v1/users/me/koreader-key", { key: SYNC_KEY }, reader)).status).toBe(200);
  }, 60_000);

  /** A kosync call; the body is parsed only when the answer is exactly `application/json`. */
  const kosync = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await server().fetch(`/koreader${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    expect(response.headers.get("content-type")).toBe("application/json");
    return { status: response.status, body: JSON.parse(await response.text()) };
  };
  const device = () => kosyncHeaders("reader", md5(SYNC_KEY));
  const push = (body: Record<string, unknown>, headers = device()) => kosync("PUT", "/syncs/progress", headers, body);
  const pull = (document: string, headers = device()) => kosync("GET", `/syncs/progress/${document}`, headers);
  const restProgress = (file: string) => server().json("GET", `/api/v1/books/${library.books[file]!.id}/progress`, undefined, reader);

  test("register is refused with the official 'registration disabled' answer: accounts are made in Longbox", async () => {
    const answer = await kosync("POST", "/users/create", kosyncHeaders(), { username: "newcomer", password: md5("secret") });
    expect(answer.status).toBe(402);
    expect(answer.body).toEqual({ code: 2005, message: expect.stringContaining("Longbox") });
  });

  test("authorize: the username with the MD5 of the sync key, or an API key in x-auth-user", async () => {
    expect(await kosync("GET", "/users/auth", device())).toEqual({ status: 200, body: { authorized: "OK" } });
    const refused = { status: 401, body: { code: 2001, message: "Unauthorized" } };
    expect(await kosync("GET", "/users/auth", kosyncHeaders("reader", md5(PASSWORD)))).toEqual(refused);
    expect(await kosync("GET", "/users/auth", kosyncHeaders("reader", SYNC_KEY))).toEqual(refused);
    expect(await kosync("GET", "/users/auth", kosyncHeaders("nobody", md5(SYNC_KEY)))).toEqual(refused);
    expect(await kosync("GET", "/users/auth", kosyncHeaders("reader"))).toEqual(refused);
    expect(await kosync("GET", "/users/auth", kosyncHeaders())).toEqual(refused);
    const apiKey = (await server().json("POST", "/api/v1/api-keys", { name: "kobo" }, reader)).body.key as string;
    expect(await kosync("GET", "/users/auth", kosyncHeaders(apiKey, "ignored"))).toEqual({ status: 200, body: { authorized: "OK" } });
    expect(await kosync("GET", "/users/auth", kosyncHeaders(`${apiKey}x`, "ignored"))).toEqual(refused);
  });

  test("the key is stored as an Argon2 hash of its MD5; a generated key replaces it, and removing it locks KOReader out", async () => {
    const admin = bearer(library.adminToken);
    const adminKey = await server().json("POST", "/api/v1/users/me/koreader-key", undefined, admin);
    expect(adminKey.status).toBe(201);
    expect(adminKey.body).toEqual({ configured: true, createdAt: expect.any(String), key: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) });
    expect((await kosync("GET", "/users/auth", kosyncHeaders("admin", md5(adminKey.body.key)))).status).toBe(200);
    const [row] = await rawQuery(server(), "SELECT k.key_hash FROM koreader_keys k JOIN users u ON u.id = k.user_id WHERE u.username = 'admin'");
    const stored = String(row!.key_hash);
    expect(stored).toStartWith("$argon2id$");
    expect(stored).not.toContain(adminKey.body.key);
    expect(stored).not.toContain(md5(adminKey.body.key));

    const again = await server().json("POST", "/api/v1/users/me/koreader-key", undefined, admin);
    expect((await kosync("GET", "/users/auth", kosyncHeaders("admin", md5(adminKey.body.key)))).status).toBe(401);
    expect((await kosync("GET", "/users/auth", kosyncHeaders("admin", md5(again.body.key)))).status).toBe(200);
    expect((await server().json("GET", "/api/v1/users/me/koreader-key", undefined, admin)).body).toEqual({ configured: true, createdAt: expect.any(String) });
    expect((await server().json("DELETE", "/api/v1/users/me/koreader-key", undefined, admin)).status).toBe(204);
    expect((await server().json("GET", "/api/v1/users/me/koreader-key", undefined, admin)).body).toEqual({ configured: false, createdAt: null });
    expect((await kosync("GET", "/users/auth", kosyncHeaders("admin", md5(again.body.key)))).status).toBe(401);
    expect((await server().json("PUT", "/api/v1/users/me/koreader-key", { key: "short" }, admin)).status).toBe(422);
    expect((await server().json("GET", "/api/v1/users/me/koreader-key")).status).toBe(401);
  });

  test("KOReader's own tall.pdf is found by its published partial MD5", async () => {
    expect(await pull(TALL_PDF)).toEqual({ status: 200, body: {} });
    const pushed = await push({ document: TALL_PDF, progress: "1", percentage: 1, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect(pushed).toEqual({ status: 200, body: { document: TALL_PDF, timestamp: expect.any(Number) } });
    expect(Number.isInteger(pushed.body.timestamp)).toBe(true);
    expect(Math.abs(pushed.body.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect((await restProgress("tall.pdf")).body).toMatchObject({ page: 1, completed: true, device: "Kobo Libra 2" });
    expect((await pull(TALL_PDF)).body).toEqual({
      document: TALL_PDF,
      percentage: 1,
      progress: "1",
      device: "Kobo Libra 2",
      device_id: DEVICE_ID,
      timestamp: pushed.body.timestamp,
    });
  });

  test("a page pushed from the device shows up in the REST API and OPDS pse:lastRead, and is pulled back", async () => {
    const book = library.books["test_cix.pdf"]!;
    const document = md5("test_cix.pdf");
    expect(book.pageCount).toBe(4);
    const pushed = await push({ document, progress: "3", percentage: 0.75, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect(pushed.status).toBe(200);
    expect((await restProgress("test_cix.pdf")).body).toMatchObject({
      page: 3,
      completed: false,
      percentage: 75,
      progression: null,
      locator: null,
      device: "Kobo Libra 2",
    });
    const feed = await server().fetch("/opds/v1.2/recent", { headers: basic("reader", PASSWORD) });
    const entry = parseFeed(await feed.text()).entry!.find((candidate) => candidate.id === `urn:uuid:${book.id}`)!;
    expect(linkOf(entry, "http://vaemendis.net/opds-pse/stream")!["pse:lastRead"]).toBe("3");
    expect(await pull(document)).toEqual({
      status: 200,
      body: { document, percentage: 0.75, progress: "3", device: "Kobo Libra 2", device_id: DEVICE_ID, timestamp: pushed.body.timestamp },
    });
  });

  test("progress set through the API is what the device pulls; the last writer wins", async () => {
    const book = library.books["test_cix.pdf"]!;
    const document = md5("test_cix.pdf");
    expect((await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 2 }, reader)).status).toBe(200);
    expect((await pull(document)).body).toEqual({ document, percentage: 0.5, progress: "2", device: "Longbox", device_id: "", timestamp: expect.any(Number) });
    // The device writes again: its position replaces the API's.
    await push({ document, progress: "1", percentage: 0.25, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect((await restProgress("test_cix.pdf")).body).toMatchObject({ page: 1, device: "Kobo Libra 2" });
  });

  test("an EPUB's XPointer and percentage round-trip exactly; the web reader's position reaches the device", async () => {
    const book = library.books["leaves.epub"]!;
    const xpointer = "/body/DocFragment[3]/body/div/p[12]/text().57";
    const pushed = await push({ document: LEAVES_EPUB, progress: xpointer, percentage: 0.4567, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect(pushed.status).toBe(200);
    expect((await restProgress("leaves.epub")).body).toMatchObject({ page: 3, progression: 0.4567, percentage: 45.7, locator: null, completed: false });
    expect((await pull(LEAVES_EPUB)).body).toEqual({
      document: LEAVES_EPUB,
      percentage: 0.4567,
      progress: xpointer,
      device: "Kobo Libra 2",
      device_id: DEVICE_ID,
      timestamp: pushed.body.timestamp,
    });

    // The file-name mode names the same book.
    const byName = md5("leaves.epub");
    expect((await pull(byName)).body.progress).toBe(xpointer);

    const locator = { href: "OEBPS/chapter4.xhtml", locations: { progression: 0.2, totalProgression: 0.6 } };
    await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 4, progression: 0.6, locator }, reader);
    expect((await pull(LEAVES_EPUB)).body).toMatchObject({ percentage: 0.6, progress: "/body/DocFragment[4].0", device: "Longbox" });

    // Reaching the end completes the book.
    await push({ document: byName, progress: "/body/DocFragment[9].0", percentage: 1, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect((await restProgress("leaves.epub")).body).toMatchObject({ completed: true, percentage: 100, progression: 1 });
  });

  test("a hidden book is an unknown document to kosync: the push is kept for the document only, the book is untouched", async () => {
    const hidden = library.books["Hidden #001.cbz"]!;
    const [row] = await rawQuery(server(), "SELECT partial_md5 FROM books WHERE id = $1", hidden.id);
    const hiddenDocument = String(row!.partial_md5);
    expect(hiddenDocument).toMatch(/^[0-9a-f]{32}$/);
    expect(await pull(hiddenDocument)).toEqual({ status: 200, body: {} });
    const kept = await push({ document: hiddenDocument, progress: "1", percentage: 0.5, device: "Kobo", device_id: DEVICE_ID });
    expect(kept).toEqual({ status: 200, body: { document: hiddenDocument, timestamp: expect.any(Number) } });
    expect(await rawQuery(server(), "SELECT 1 FROM read_progress WHERE book_id = $1", hidden.id)).toEqual([]);
    expect((await pull(hiddenDocument)).body).toEqual({ document: hiddenDocument, percentage: 0.5, progress: "1", device: "Kobo", device_id: DEVICE_ID, timestamp: kept.body.timestamp });

    // The admin sees the book, and the admin's API key syncs it; each keeps their own position.
    const adminKey = (await server().json("POST", "/api/v1/api-keys", { name: "kobo" }, bearer(library.adminToken))).body.key as string;
    expect((await push({ document: hiddenDocument, progress: "2", percentage: 0.5, device: "Kobo", device_id: DEVICE_ID }, kosyncHeaders(adminKey))).status).toBe(200);
    expect((await pull(hiddenDocument, kosyncHeaders(adminKey))).body.progress).toBe("2");
    expect((await pull(hiddenDocument)).body.progress).toBe("1");
    expect(await rawQuery(server(), "SELECT 1 FROM read_progress WHERE book_id = $1 AND user_id = $2", hidden.id, library.readerId)).toEqual([]);
  });

  test("a document Longbox does not know is kept as the official server keeps it: 200, pulled back as pushed, per user", async () => {
    const document = md5("a book that only lives on the device.epub");
    expect(await pull(document)).toEqual({ status: 200, body: {} });
    const xpointer = "/body/DocFragment[7]/body/div/p[3]/text().12";
    const first = await push({ document, progress: xpointer, percentage: 0.3141, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect(first).toEqual({ status: 200, body: { document, timestamp: expect.any(Number) } });
    expect(Math.abs(first.body.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(await pull(document)).toEqual({
      status: 200,
      body: { document, percentage: 0.3141, progress: xpointer, device: "Kobo Libra 2", device_id: DEVICE_ID, timestamp: first.body.timestamp },
    });
    // The last push wins; no book's progress is touched.
    await push({ document, progress: "/body/DocFragment[8].0", percentage: 0.4, device: "Kindle", device_id: "" });
    expect((await pull(document)).body).toMatchObject({ progress: "/body/DocFragment[8].0", percentage: 0.4, device: "Kindle", device_id: "" });
    // Another account has nothing there.
    const adminKey = (await server().json("POST", "/api/v1/api-keys", { name: "kindle" }, bearer(library.adminToken))).body.key as string;
    expect(await pull(document, kosyncHeaders(adminKey))).toEqual({ status: 200, body: {} });
    // Validation and credentials are as for known books.
    expect((await push({ document, progress: "1", device: "Kobo" })).status).toBe(403);
    expect((await push({ document, progress: "1", percentage: 0.1, device: "Kobo" }, kosyncHeaders("reader", md5("wrong")))).status).toBe(401);
  });

  test("progress pushed before the book was catalogued is taken over as its read progress when it appears", async () => {
    const later = "Later #001.cbz";
    const document = md5(later);
    const pushed = await push({ document, progress: "3", percentage: 0.5, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect(pushed.status).toBe(200);
    mkdirSync(join(library.root, "Later"), { recursive: true });
    copyFileSync(fixture("cbz/stump/science_comics_001.cbz"), join(library.root, "Later", later));
    await scan(server(), library.adminToken, library.libraryId);
    const listed = await server().json("GET", `/api/v1/books?libraryId=${library.libraryId}&pageSize=500`, undefined, reader);
    const book = listed.body.data.find((candidate: { title: string; id: string }) => candidate.id && !Object.values(library.books).some((known) => known.id === candidate.id));
    expect(book).toBeDefined();

    // The device's next pull finds the position, now the book's read progress in the REST API.
    expect((await pull(document)).body).toMatchObject({ document, progress: "3", device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect((await server().json("GET", `/api/v1/books/${book.id}/progress`, undefined, reader)).body).toMatchObject({ page: 3, device: "Kobo Libra 2" });
    expect(await rawQuery(server(), "SELECT 1 FROM koreader_unmatched_progress WHERE document = $1", document)).toEqual([]);

    // Progress the book got after the push (the web reader) is newer: it wins, and the stale push goes.
    const otherDocument = md5("Later #002.cbz");
    await push({ document: otherDocument, progress: "1", percentage: 0.1, device: "Kobo Libra 2", device_id: DEVICE_ID });
    copyFileSync(fixture("cbz/comicbox/Captain Science #001.cbz"), join(library.root, "Later", "Later #002.cbz"));
    await scan(server(), library.adminToken, library.libraryId);
    const relisted = await server().json("GET", `/api/v1/books?libraryId=${library.libraryId}&pageSize=500`, undefined, reader);
    const second = relisted.body.data.find((candidate: { filePath?: string; title: string; id: string }) => candidate.id !== book.id && !Object.values(library.books).some((known) => known.id === candidate.id));
    expect(second).toBeDefined();
    expect((await server().json("PUT", `/api/v1/books/${second.id}/progress`, { page: 2 }, reader)).status).toBe(200);
    expect((await pull(otherDocument)).body).toMatchObject({ progress: "2", device: "Longbox" });
    expect((await server().json("GET", `/api/v1/books/${second.id}/progress`, undefined, reader)).body).toMatchObject({ page: 2 });
    expect(await rawQuery(server(), "SELECT 1 FROM koreader_unmatched_progress WHERE document = $1", otherDocument)).toEqual([]);

    // A book that cannot take the position (it has no pages) leaves it stored: the pull still answers it.
    const pageless = md5("Later #003.cbz");
    const kept = await push({ document: pageless, progress: "2", percentage: 0.2, device: "Kobo Libra 2", device_id: DEVICE_ID });
    copyFileSync(fixture("cbz/comicbox/Captain Science #001-metron.cbz"), join(library.root, "Later", "Later #003.cbz"));
    await scan(server(), library.adminToken, library.libraryId);
    expect(await rawQuery(server(), "SELECT page_count FROM books WHERE file_name_md5 = $1", pageless)).toEqual([{ page_count: 0 }]);
    expect(await pull(pageless)).toEqual({
      status: 200,
      body: { document: pageless, percentage: 0.2, progress: "2", device: "Kobo Libra 2", device_id: DEVICE_ID, timestamp: kept.body.timestamp },
    });
  });

  test("a push for a known book supersedes what was kept before the book was known", async () => {
    const book = library.books["tall.pdf"]!;
    const document = md5("tall.pdf");
    // Kept while the book was hidden from the reader, then the reader's device pushes with the book visible.
    await rawQuery(
      server(),
      "INSERT INTO koreader_unmatched_progress (user_id, document, percentage, progress, device, device_id, updated_at) VALUES ($1, $2, 0.9, '9', 'Old Kobo', '', $3)",
      library.readerId,
      document,
      new Date(),
    );
    await push({ document, progress: "1", percentage: 0.5, device: "Kobo Libra 2", device_id: DEVICE_ID });
    expect(await rawQuery(server(), "SELECT 1 FROM koreader_unmatched_progress WHERE document = $1", document)).toEqual([]);
    expect((await pull(document)).body).toMatchObject({ progress: "1", device: "Kobo Libra 2" });
    expect((await restProgress("tall.pdf")).body).toMatchObject({ page: 1, device: "Kobo Libra 2" });
    expect(book.pageCount).toBeGreaterThan(0);
  });

  test("every book is found by its partial MD5 and its file-name MD5; a comic takes page numbers", async () => {
    const comic = library.books["Captain Science #001.cbz"]!;
    const bytes = readFileSync(fixture("cbz/comicbox/Captain Science #001-comet.cbz"));
    const partial = referencePartialMd5(bytes);
    expect(bytes.length % 1024).not.toBe(0);
    const byName = md5("Captain Science #001.cbz");
    expect((await push({ document: partial, progress: "4", percentage: 0.8, device: "Kobo", device_id: DEVICE_ID })).status).toBe(200);
    expect((await restProgress("Captain Science #001.cbz")).body).toMatchObject({ page: 4, completed: false, progression: null });
    expect((await pull(byName)).body.progress).toBe("4");
    // A page number outside the book falls back on the percentage.
    await push({ document: byName, progress: "999", percentage: 0.4, device: "Kobo", device_id: DEVICE_ID });
    expect((await restProgress("Captain Science #001.cbz")).body.page).toBe(Math.round(0.4 * comic.pageCount));
    expect((await pull(partial)).body.progress).toBe(String(Math.round(0.4 * comic.pageCount)));
  });

  test("books catalogued before document ids existed get them at the next scan, without re-reading unchanged books", async () => {
    await rawQuery(server(), "UPDATE books SET partial_md5 = NULL, file_name_md5 = NULL");
    expect(await pull(TALL_PDF)).toEqual({ status: 200, body: {} });
    await scan(server(), library.adminToken, library.libraryId);
    expect((await pull(TALL_PDF)).body.progress).toBe("1");
    expect((await pull(md5("leaves.epub"))).body.document).toBe(md5("leaves.epub"));
  });

  test("malformed requests get the official server's codes", async () => {
    const valid = { document: TALL_PDF, progress: "1", percentage: 0.1, device: "Kobo", device_id: DEVICE_ID };
    expect(await push({ ...valid, percentage: undefined })).toEqual({ status: 403, body: { code: 2003, message: "Invalid request" } });
    expect(await push({ ...valid, progress: undefined })).toEqual({ status: 403, body: { code: 2003, message: "Invalid request" } });
    expect(await push({ ...valid, device: undefined })).toEqual({ status: 403, body: { code: 2003, message: "Invalid request" } });
    expect(await push({ ...valid, document: undefined })).toEqual({ status: 403, body: { code: 2004, message: "Field 'document' not provided." } });
    expect(await push({ ...valid, document: "a:b" })).toEqual({ status: 403, body: { code: 2004, message: "Field 'document' not provided." } });
    expect(await kosync("PUT", "/syncs/progress", device(), "{not json")).toEqual({ status: 400, body: { code: 103, message: "Could not parse JSON in body." } });
    expect(await kosync("PUT", "/syncs/progress", device(), "[1]")).toEqual({ status: 400, body: { code: 104, message: "Body should be a JSON hash." } });
    expect((await kosync("PUT", "/syncs/progress", device(), JSON.stringify({ ...valid, device: "x".repeat(20_000) }))).status).toBe(413);
    expect((await push(valid, kosyncHeaders("reader", md5("wrong")))).status).toBe(401);
    expect((await kosync("GET", "/users/auth", { ...device(), accept: "application/vnd.koreader.v2+json" })).body.code).toBe(102);
    // The official server takes a percentage sent as a string too.
    expect((await push({ ...valid, percentage: "0.25" })).status).toBe(200);
  });
});

describe("KOReader sync switched off", () => {
  test("koreader_api.enabled: false leaves /koreader unmounted", async () => {
    const server = await startTestServer("sqlite", { koreader_api: { enabled: false } });
    try {
      const response = await server.fetch("/koreader/users/auth", { headers: kosyncHeaders("someone", md5("key")) });
      expect(response.status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});

