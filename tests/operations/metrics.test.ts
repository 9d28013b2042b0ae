/**
 * GET /api/v1/metrics: the JSON document's values, and the Prometheus exposition checked by
 * the real Prometheus parser and linter, `promtool check metrics` (Debian package `prometheus`).
 */
import { beforeAll, expect, test } from "bun:test";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { fixture } from "../helpers/fixtures";
import { libraryRoot, scanToCompletion, scannedLibrary } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const CBZ = "cbz/comicbox/macos_resource_fork.cbz";
const EPUB = "epub/idpf-built/hefty-water.epub";
const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Runs promtool on the exposition; fails with a clear message when it is not installed. */
function promtool(exposition: string, ...flags: string[]) {
  if (!Bun.which("promtool")) throw new Error("promtool is needed by this test: apt-get install prometheus");
  const run = Bun.spawnSync(["promtool", "check", "metrics", ...flags], { stdin: new TextEncoder().encode(exposition) });
  return { exitCode: run.exitCode, output: `${run.stdout.toString()}${run.stderr.toString()}` };
}

/** Series per metric family, as promtool's parser counted them (`--extended` prints a table). */
function cardinalities(exposition: string): Map<string, number> {
  const { exitCode, output } = promtool(exposition, "--extended");
  expect(exitCode).toBe(0);
  const rows = output.trim().split("\n").slice(1, -1);
  return new Map(rows.map((row) => row.trim().split(/\s+/)).map(([name, count]) => [name!, Number(count)]));
}

forEachDatabase("Metrics: JSON and Prometheus", (server) => {
  let admin: Record<string, string>;
  let reader: Record<string, string>;
  let bookId: string;
  let libraryId: string;
  const cbzBytes = statSync(fixture(CBZ)).size;
  const epubBytes = statSync(fixture(EPUB)).size;

  beforeAll(async () => {
    const adminToken = (await adminSession(server())).token;
    admin = bearer(adminToken);
    const readerId = await createUser(server(), adminToken, "reader");
    reader = bearer((await login(server(), "reader")).token);
    libraryId = await scannedLibrary(server(), adminToken, "Metered", {
      "Comics/Comics 001.cbz": CBZ,
      "Comics/Comics 002.cbz": CBZ,
      "Comics/Comics 003.cbz": CBZ,
      "Novels/hefty-water.epub": EPUB,
    });
    // One book goes missing: a rescan soft-deletes it.
    rmSync(join(libraryRoot(server(), "Metered"), "Comics/Comics 003.cbz"));
    await scanToCompletion(server(), adminToken, libraryId);

    const books = (await server().json("GET", "/api/v1/books?pageSize=500", undefined, admin)).body.data;
    const comic = books.find((book: { fileFormat: string }) => book.fileFormat === "cbz");
    bookId = comic.id;
    // The reader may not see the comics series.
    const tag = (await server().json("POST", "/api/v1/sharing-tags", { name: "Grown-ups" }, admin)).body;
    await server().json("PUT", `/api/v1/series/${comic.seriesId}/sharing-tags`, { sharingTagIds: [tag.id] }, admin);
    await server().json("PUT", `/api/v1/users/${readerId}/sharing-tags`, { sharingTagId: tag.id, accessMode: "deny" }, admin);

    // Traffic to count: a templated route, an unknown path, an error status.
    await server().json("GET", `/api/v1/books/${bookId}`, undefined, admin);
    await server().json("GET", "/api/v1/no-such-route", undefined, admin);
    await server().json("GET", `/api/v1/books/${bookId}`, undefined, reader);
  });

  test("JSON by default: inventory, scans, thumbnails, process", async () => {
    const { status, headers, body } = await server().json("GET", "/api/v1/metrics", undefined, admin);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toStartWith("application/json");
    expect(body.inventory).toEqual({
      libraries: 1,
      series: 2,
      books: 3,
      deletedBooks: 1,
      totalFileBytes: 2 * cbzBytes + epubBytes,
      booksWithThumbnail: 2, // the two present comics; not the EPUB, nor the deleted book's
      byFormat: { cbz: { books: 2, bytes: 2 * cbzBytes }, epub: { books: 1, bytes: epubBytes } },
    });
    expect(body.scans).toEqual({
      running: 0,
      pending: 0,
      completed: 2,
      failed: 0,
      cancelled: 0,
      lastCompletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      thumbnailsPending: 0,
      thumbnailsMade: 3,
      thumbnailsFailed: 1, // the EPUB has no image to make one from
    });
    expect(body.process).toEqual({
      rssBytes: expect.any(Number),
      heapUsedBytes: expect.any(Number),
      uptimeSeconds: expect.any(Number),
      version: expect.any(String),
    });
    expect(body.process.rssBytes).toBeGreaterThan(0);
  });

  test("HTTP requests are counted by method, route template and the status that was sent", async () => {
    const { body } = await server().json("GET", "/api/v1/metrics", undefined, admin);
    const count = (method: string, route: string, status: number) =>
      body.http.requests.find((entry: { method: string; route: string; status: number }) => entry.method === method && entry.route === route && entry.status === status)?.count;
    expect(count("GET", "/api/v1/books/:id", 200)).toBeGreaterThanOrEqual(1);
    expect(count("GET", "/api/v1/books/:id", 404)).toBeGreaterThanOrEqual(1);
    expect(count("GET", "unmatched", 404)).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(body.http)).not.toContain(bookId);

    const latency = body.http.latency.routes.find((entry: { route: string; status: number }) => entry.route === "/api/v1/books/:id" && entry.status === 200);
    expect(latency.count).toBe(count("GET", "/api/v1/books/:id", 200));
    expect(latency.bucketCounts).toHaveLength(body.http.latency.bucketsSeconds.length);
    expect(latency.bucketCounts.at(-1)).toBeLessThanOrEqual(latency.count);
    expect(latency.sumSeconds).toBeGreaterThan(0);
  });

  test("inventory follows the caller's visibility: hidden series are absent from the counts", async () => {
    const { body } = await server().json("GET", "/api/v1/metrics", undefined, reader);
    expect(body.inventory).toEqual({
      libraries: 1,
      series: 1,
      books: 1,
      deletedBooks: 0,
      totalFileBytes: epubBytes,
      booksWithThumbnail: 0,
      byFormat: { epub: { books: 1, bytes: epubBytes } },
    });
  });

  test("Prometheus text for ?format=prometheus, Accept: text/plain and Prometheus's own scrape Accept; promtool finds no problem", async () => {
    const byQuery = await server().fetch("/api/v1/metrics?format=prometheus", { headers: admin });
    expect(byQuery.status).toBe(200);
    expect(byQuery.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
    const exposition = await byQuery.text();
    expect(promtool(exposition)).toEqual({ exitCode: 0, output: "" });
    expect(exposition).not.toContain(bookId);

    const byAccept = await server().fetch("/api/v1/metrics", { headers: { ...admin, accept: "text/plain;version=0.0.4;q=0.5,*/*;q=0.1" } });
    expect(byAccept.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
    expect(promtool(await byAccept.text()).exitCode).toBe(0);

    // What a Prometheus server really sends (OpenMetrics first, this format as its fallback).
    const prometheusScrape = await server().fetch("/api/v1/metrics", {
      headers: { ...admin, accept: "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1" },
    });
    expect(prometheusScrape.status).toBe(200);
    expect(prometheusScrape.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
    const scraped = await prometheusScrape.text();
    expect(scraped).toContain("# TYPE ");
    expect(promtool(scraped)).toEqual({ exitCode: 0, output: "" });

    const jsonWins = await server().fetch("/api/v1/metrics", { headers: { ...admin, accept: "application/json, text/plain, */*" } });
    expect(jsonWins.headers.get("content-type")).toStartWith("application/json");
  });

  test("the exposition carries every metric family, as the Prometheus parser counts them", async () => {
    const exposition = await (await server().fetch("/api/v1/metrics?format=prometheus", { headers: admin })).text();
    const families = cardinalities(exposition);
    expect(Object.fromEntries(families)).toMatchObject({
      longbox_libraries: 1,
      longbox_series: 1,
      longbox_books_deleted: 1,
      longbox_books_with_thumbnail: 1,
      longbox_books: 2, // cbz and epub
      longbox_book_file_bytes: 2,
      longbox_scans: 5, // one per state
      longbox_scan_last_completed_timestamp_seconds: 1,
      longbox_thumbnails_pending: 1,
      longbox_thumbnails_made_total: 1,
      longbox_thumbnails_failed_total: 1,
      longbox_build_info: 1,
      process_resident_memory_bytes: 1,
      nodejs_heap_size_used_bytes: 1,
      process_start_time_seconds: 1,
    });
    expect(exposition).toContain("\nlongbox_books_with_thumbnail 2\n");
    expect(families.get("longbox_http_requests_total")).toBeGreaterThanOrEqual(3);
    expect(families.get("longbox_http_request_duration_seconds")).toBeGreaterThanOrEqual(3 * 14); // 11 buckets, +Inf, sum, count

    const restricted = await (await server().fetch("/api/v1/metrics?format=prometheus", { headers: reader })).text();
    expect(cardinalities(restricted).get("longbox_books")).toBe(1); // epub only
  });

  test("metrics need credentials", async () => {
    expect((await server().json("GET", "/api/v1/metrics")).status).toBe(401);
    expect((await server().fetch("/api/v1/metrics?format=prometheus")).status).toBe(401);
  });
});
