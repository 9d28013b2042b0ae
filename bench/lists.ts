/**
 * List endpoints on a large catalogue (issue 14), without files: the server (from source, one
 * process) starts on an empty SQLite or PostgreSQL database, migrates it, and the catalogue is
 * then inserted straight into its tables (1 library, a series per 100 books, books with
 * authors, a genre and a year per series, the admin's reading of some series), so 100,000
 * books take seconds instead of a scan and its thumbnails; the server is then started again on
 * the seeded database. Each list is
 * asked by `wrk --latency` with one client, then four, first as the admin, then as a reader
 * whose sharing-tag grant admits half the series (every query then carries the visibility
 * rule). The tables are written through the schema of the checkout measured (--source), so an
 * older version with other columns is measured on its own schema. Beside the latencies, the
 * CPU time the server (and its PostgreSQL backends) spent per request in the one-client run.
 * For each API list, what checking its answer against the route's response schema costs
 * (./response-check.ts, issue 34), as a share of that list's CPU per request.
 * Last, the web series grid as the admin, unfiltered and filtered by read status + genre + a
 * decade (issue 32: the filtered p99 within 2x the unfiltered one).
 *
 *   bun bench/lists.ts [--database sqlite|postgres] [--books 10000,100000] [--seconds 5]
 *                      [--source DIR]   # another checkout of Longbox to measure (before/after)
 *                      [--lists grid]   # only the web series grid, unfiltered and filtered
 *
 * bench/reading.ts measures the same lists on a scanned library through the compiled binary.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Database as SqliteClient } from "bun:sqlite";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type * as pgSchema from "../src/db/schema/pg";
import { startServerProcess, type ServerProcess } from "../scripts/server-process";
import { markdownTable, ratio, wrk } from "./measure";
import { listSchemaOf, responseCheckMicros } from "./response-check";
import { browserSessionCookie } from "./server";

const { values } = parseArgs({
  options: {
    database: { type: "string", default: "sqlite" },
    books: { type: "string", default: "10000,100000" },
    seconds: { type: "string", default: "5" },
    source: { type: "string", default: "." },
    lists: { type: "string", default: "all" },
  },
});
const DATABASE = values.database === "postgres" ? "postgres" : "sqlite";
const SECONDS = Number(values.seconds);
const SOURCE = resolve(values.source!);
/** "grid": only the web series grid (issue 32's figure), skipping the API lists. */
const GRID_ONLY = values.lists === "grid";
/** What the API writes for a new library (src/library/libraries.ts): the answers' schema expects it whole. */
const BENCH_SCANNING = { enabled: false, cronSchedule: null, defaultMode: "normal", scanOnStart: false, watch: false, pollSeconds: null };
const POSTGRES_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres";
const PASSWORD = "benchmark password";
type Tables = typeof pgSchema;
type Inserter = { insert: (table: never) => { values: (rows: never[]) => Promise<unknown> } };
const schemaOf = async (dialect: "pg" | "sqlite"): Promise<Tables> => (await import(join(SOURCE, `src/db/schema/${dialect}.ts`))) as Tables;

/**
 * CPU time (user + system, ms) spent so far by the server process and, on PostgreSQL, by the
 * backends serving this benchmark's database (their process titles name it). Per request, it
 * compares versions on a machine shared with other work far better than latency does: the
 * neighbours' load stretches waiting, not the work done.
 */
function cpuMs(serverPid: number, pgName: string | undefined): number {
  const ticksOf = (pid: string) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
      return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      return 0; // the process ended between listing and reading
    }
  };
  let ticks = ticksOf(String(serverPid));
  if (pgName) {
    for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
      let title = "";
      try {
        title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        continue;
      }
      if (title.startsWith("postgres: ") && title.includes(` ${pgName} `)) ticks += ticksOf(pid);
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = 100;

/** Series `s` (and its books): one of 10 genres, one of 40 years; the filtered list asks for one genre and a decade. */
const genreOf = (s: number) => `Genre ${s % 10}`;
const yearOf = (s: number) => 1980 + (s % 40);
const FILTERED_GRID = "status=unread&genre=Genre%203&year_from=1990&year_to=1999";

/**
 * The admin's reading: every third series read to its middle (in progress), every fifth read
 * through (read), so the read-status filter has all three states to tell apart.
 */
interface SeededBook {
  id: string;
  series: number;
  number: number;
}

function progressRows(books: SeededBook[], userId: string) {
  const now = new Date();
  return books.flatMap(({ id, series, number }) => {
    if (series % 5 === 0) return [{ userId, bookId: id, page: 20, completed: true, updatedAt: now }];
    if (series % 3 === 0 && number <= 50) return [{ userId, bookId: id, page: 20, completed: number < 50, updatedAt: now }];
    return [];
  });
}

/** Inserts `count` books in series of 100 through drizzle (same tables on both databases). */
async function seed(db: Inserter, tables: Tables, count: number): Promise<{ tagId: string; seeded: SeededBook[] }> {
  const insert = (table: unknown, rows: unknown[]) => db.insert(table as never).values(rows as never[]);
  const seeded: SeededBook[] = [];
  const now = new Date();
  const libraryId = crypto.randomUUID();
  await insert(tables.libraries, [
    { id: libraryId, name: "Bench", path: "/nonexistent/bench", defaultReadingDirection: "ltr", seriesStrategy: "series_volume", scanningConfig: BENCH_SCANNING, createdAt: now, updatedAt: now },
  ]);
  const seriesIds: string[] = [];
  const seriesRows = [];
  for (let s = 0; s < Math.ceil(count / 100); s++) {
    const id = crypto.randomUUID();
    seriesIds.push(id);
    const name = `Series ${String(s).padStart(3, "0")}`;
    // The series' genre as the settlement of its books writes it (columns an older checkout lacks are ignored).
    seriesRows.push({ id, libraryId, seriesKey: name, name, nameSort: name.toLowerCase(), year: yearOf(s), genres: [genreOf(s)], lockedFields: [], createdAt: now, updatedAt: now });
  }
  for (let i = 0; i < seriesRows.length; i += 500) await insert(tables.series, seriesRows.slice(i, i + 500));
  // And its row of series_metadata_values (issue 32), when the checkout measured has the table.
  const values = (tables as Partial<Record<"seriesMetadataValues", unknown>>).seriesMetadataValues;
  const valueRows = seriesRows.map(({ id }, s) => ({ seriesId: id, kind: "genre", key: genreOf(s).toLowerCase(), value: genreOf(s), role: "" }));
  for (let i = 0; values && i < valueRows.length; i += 500) await insert(values, valueRows.slice(i, i + 500));
  // A sharing tag on every other series, for the reader (see measure).
  const tagId = crypto.randomUUID();
  await insert(tables.sharingTags, [{ id: tagId, name: "half", createdAt: now, updatedAt: now }]);
  const tagged = seriesIds.filter((_, index) => index % 2 === 0).map((seriesId) => ({ seriesId, sharingTagId: tagId }));
  for (let i = 0; i < tagged.length; i += 500) await insert(tables.seriesSharingTags, tagged.slice(i, i + 500));
  let rows = [];
  for (let b = 0; b < count; b++) {
    const s = Math.floor(b / 100);
    const number = (b % 100) + 1;
    const title = `Series ${String(s).padStart(3, "0")} #${String(number).padStart(3, "0")}`;
    const author = `Author ${b % 997}`;
    const id = crypto.randomUUID();
    seeded.push({ id, series: s, number });
    rows.push({
      id,
      libraryId,
      seriesId: seriesIds[s]!,
      title,
      searchText: `${title}\n${author}`.toLowerCase(),
      orderSeries: seriesRows[s]!.nameSort,
      orderNumber: number,
      orderTitle: title.toLowerCase(),
      number,
      numberSort: number,
      year: yearOf(s),
      metadata: { authors: [{ name: author, role: "writer" }], genres: [genreOf(s)] },
      lockedFields: [],
      fileFormat: "cbz",
      mediaType: "application/vnd.comicbook+zip",
      fileHash: crypto.randomUUID(),
      filePath: `${seriesRows[s]!.name}/${title}.cbz`,
      fileSize: 1000,
      fileModifiedAt: 0,
      pageCount: 20,
      coverPage: 1,
      analyzed: true,
      deleted: false,
      createdAt: now,
      updatedAt: now,
    });
    if (rows.length === 500) {
      await insert(tables.books, rows);
      rows = [];
    }
  }
  if (rows.length > 0) await insert(tables.books, rows);
  return { tagId, seeded };
}

/** Runs `work` on the benchmark's database through drizzle, then refreshes the planner's statistics. */
async function withDatabase<T>(dir: string, pgName: string, work: (db: Inserter, tables: Tables) => Promise<T>): Promise<T> {
  if (DATABASE === "postgres") {
    const client = postgres(`postgres://postgres@127.0.0.1:5432/${pgName}`, { max: 1, onnotice: () => undefined });
    try {
      const result = await work(drizzlePg(client) as never, await schemaOf("pg"));
      // The state autovacuum reaches after a scan: statistics and the visibility map.
      await client.unsafe("VACUUM ANALYZE");
      return result;
    } finally {
      await client.end();
    }
  }
  const client = new SqliteClient(join(dir, "longbox.db"));
  try {
    client.exec("PRAGMA busy_timeout = 5000");
    const result = await work(drizzleSqlite(client) as never, await schemaOf("sqlite"));
    client.exec("ANALYZE");
    return result;
  } finally {
    client.close();
  }
}

async function measure(books: number): Promise<string[][]> {
  const work = mkdtempSync(join(tmpdir(), "longbox-lists-"));
  const pgName = `longbox_lists_${process.pid}`;
  let database: Record<string, unknown> = { type: "sqlite" };
  const pgAdmin = postgres(POSTGRES_ADMIN, { max: 1, onnotice: () => undefined });
  if (DATABASE === "postgres") {
    await pgAdmin.unsafe(`DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`);
    await pgAdmin.unsafe(`CREATE DATABASE "${pgName}"`);
    database = { type: "postgres", postgres: { url: `postgres://postgres@127.0.0.1:5432/${pgName}` } };
  }
  const configPath = join(work, "config.yaml");
  writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", port: 0, workers: 1, data_dir: work }, database }));
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, TMPDIR: tmpdir() };
  let child: ServerProcess["child"] | undefined;
  try {
    const start = () => startServerProcess([process.execPath, join(SOURCE, "src/main.ts"), "serve", "--config", configPath], { cwd: SOURCE, env, timeoutMs: 120_000 });
    const started = await start();
    child = started.child;
    let url = started.url;
    // The catalogue first; the admin's reading once the server has made the admin; then the
    // statistics a running server would have gathered (autovacuum, or ANALYZE after a scan).
    const seeded = await withDatabase(work, pgName, async (db, tables) => (await seed(db, tables, books)));
    const json = { "content-type": "application/json" };
    await fetch(`${url}/api/v1/setup`, { method: "POST", headers: json, body: JSON.stringify({ username: "bench", password: PASSWORD }) });
    const login = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ username: "bench", password: PASSWORD }) });
    const { token } = (await login.json()) as { token: string };
    const admin = { authorization: `Bearer ${token}` };
    const adminId = ((await (await fetch(`${url}/api/v1/auth/me`, { headers: admin })).json()) as { id: string }).id;
    await withDatabase(work, pgName, async (db, tables) => {
      const rows = progressRows(seeded.seeded, adminId);
      for (let i = 0; i < rows.length; i += 500) await db.insert(tables.readProgress as never).values(rows.slice(i, i + 500) as never[]);
    });
    const tagId = seeded.tagId;
    const created = await fetch(`${url}/api/v1/users`, { method: "POST", headers: { ...json, ...admin }, body: JSON.stringify({ username: "reader", email: "reader@example.org", password: PASSWORD, role: "user" }) });
    const { id: readerId } = (await created.json()) as { id: string };
    const granted = await fetch(`${url}/api/v1/users/${readerId}/sharing-tags`, { method: "PUT", headers: { ...json, ...admin }, body: JSON.stringify({ sharingTagId: tagId, accessMode: "allow" }) });
    if (granted.status !== 200) throw new Error(`granting the reader's tag: ${granted.status}`);
    const readerLogin = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ username: "reader", password: PASSWORD }) });
    const reader = { authorization: `Bearer ${((await readerLogin.json()) as { token: string }).token}` };
    // Started again on the seeded database, as a server that scanned it would have its own
    // statistics: without this, the admin's series lists (over the reading inserted while the
    // server ran on the tables it opened empty) took 100 times the CPU on SQLite, most likely
    // the plans its connection made on empty tables (docs/benchmarks.md, issue 32).
    child.kill("SIGTERM");
    await child.exited;
    const restarted = await start();
    child = restarted.child;
    url = restarted.url;
    const server = child;
    /** One list with one client then four, and the CPU per request; `total` is the API's (none for a web page). */
    const measureList = async (label: string, path: string, headers: Record<string, string>): Promise<string[]> => {
      const check = await fetch(`${url}${path}`, { headers });
      if (check.status !== 200) throw new Error(`${path}: ${check.status}`);
      const text = await check.text();
      const total = text.startsWith("{") ? (JSON.parse(text) as { total?: number }).total : undefined;
      const cpuBefore = cpuMs(server.pid, DATABASE === "postgres" ? pgName : undefined);
      const single = await wrk(`${url}${path}`, 1, SECONDS, headers);
      const cpuPerRequest = (cpuMs(server.pid, DATABASE === "postgres" ? pgName : undefined) - cpuBefore) / single.requests;
      const loaded = await wrk(`${url}${path}`, 4, SECONDS, headers);
      const checkMicros = path.startsWith("/api/v1/") ? await responseCheckMicros(listSchemaOf(path), JSON.parse(text)) : undefined;
      return [
        label,
        total === undefined ? "-" : String(total),
        `p99 ${single.p99Ms.toFixed(1)} ms (${single.errors} errors)`,
        `${cpuPerRequest.toFixed(2)} ms`,
        `p99 ${loaded.p99Ms.toFixed(1)} ms, ${loaded.requestsPerSecond.toFixed(0)} req/s (${loaded.errors} errors)`,
        checkMicros === undefined ? "-" : `${checkMicros.toFixed(1)} µs (${((checkMicros / 1000 / cpuPerRequest) * 100).toFixed(1)}% of its CPU)`,
      ];
    };
    const rows: string[][] = [];
    const firstSeries = ((await (await fetch(`${url}/api/v1/series?pageSize=1`, { headers: admin })).json()) as { data: { id: string }[] }).data[0]!.id;
    for (const [caller, headers] of GRID_ONLY ? [] : ([["admin", admin], ["reader", reader]] as const)) {
      // 3/4 into what the caller sees (the reader sees half the catalogue).
      const visible = ((await (await fetch(`${url}/api/v1/books?pageSize=1`, { headers })).json()) as { total: number }).total;
      const deepPage = Math.floor((visible / 50) * 0.75);
      const lists: [string, string][] = [
        ["GET /api/v1/books?pageSize=50", "/api/v1/books?pageSize=50"],
        [`GET /api/v1/books?pageSize=50&page=${deepPage} (3/4 deep)`, `/api/v1/books?pageSize=50&page=${deepPage}`],
        ["GET /api/v1/books?q=series 042&pageSize=50", "/api/v1/books?q=series%20042&pageSize=50"],
        ["GET /api/v1/books?q=author 12&pageSize=50", "/api/v1/books?q=author%2012&pageSize=50"],
        ["GET /api/v1/series?pageSize=50", "/api/v1/series?pageSize=50"],
        ["GET /api/v1/series?q=ies 04&pageSize=50", "/api/v1/series?q=ies%2004&pageSize=50"],
        ["GET /api/v1/series/{id}/books?pageSize=50", `/api/v1/series/${firstSeries}/books?pageSize=50`],
        ["GET /api/v1/libraries", "/api/v1/libraries"],
      ];
      for (const [label, path] of lists) rows.push(await measureList(`${label}, ${books} books, ${caller}`, path, headers));
    }
    // The web series grid (issue 32): a library's series as the grid's htmx fragment (without
    // the filter form's facets, the same on both), unfiltered and by read status + genre + a
    // decade, as the admin whose reading was seeded; the filtered p99 is to stay within 2x.
    const cookie = { cookie: await browserSessionCookie({ url }), "hx-request": "true" };
    const libraryId = ((await (await fetch(`${url}/api/v1/libraries`, { headers: admin })).json()) as { id: string }[])[0]!.id;
    const grid = await measureList(`web series grid, ${books} books, admin`, `/libraries/${libraryId}`, cookie);
    const filtered = await measureList(`web series grid (${decodeURIComponent(FILTERED_GRID)}), ${books} books, admin`, `/libraries/${libraryId}?${FILTERED_GRID}`, cookie);
    filtered[1] = `${filtered[1]} (${ratio(Number(/p99 ([\d.]+)/.exec(filtered[2]!)![1]), Number(/p99 ([\d.]+)/.exec(grid[2]!)![1]))} the unfiltered p99)`;
    rows.push(grid, filtered);
    return rows;
  } finally {
    child?.kill("SIGTERM");
    await child?.exited;
    if (DATABASE === "postgres") await pgAdmin.unsafe(`DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`);
    await pgAdmin.end();
    rmSync(work, { recursive: true, force: true });
  }
}

const rows: string[][] = [];
for (const books of values.books!.split(",").map(Number)) rows.push(...(await measure(books)));
console.log(`\nLists on ${DATABASE}, source ${SOURCE} (${new Date().toISOString()})\n`);
console.log(markdownTable(["list", "total", "one client", "CPU per request (one client)", "4 clients", "answer's schema check"], rows));
