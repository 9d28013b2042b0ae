/**
 * Web interface benchmark (issue 12), on the compiled binary run alone: server time of the
 * pages a person browses (home, a library's series grid, a series with its books) on a
 * 10,000-book catalogue, as p99 latency with one client at a time (`wrk -c1 --latency`, signed
 * in with the session cookie), beside the REST list each page is built on, in the same run; and
 * the server's own view: the p99 bucket of its request-duration histogram for the route (time
 * from receiving the request to finishing the response, without the client's side).
 *
 *   bun bench/web-pages.ts [--database sqlite|postgres] [--books 10000] [--seconds 10]
 *
 * Needs Debian's wrk.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import sharp from "sharp";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { markdownTable, ratio } from "./measure";
import { api, browserSessionCookie, scanToCompletion, startBenchServer, type BenchServer } from "./server";
import { wrk } from "./measure";

const { values } = parseArgs({
  options: {
    database: { type: "string", default: "sqlite" },
    books: { type: "string", default: "10000" },
    seconds: { type: "string", default: "10" },
  },
});
const DATABASE = values.database === "postgres" ? "postgres" : "sqlite";
const BOOKS = Number(values.books);
const SECONDS = Number(values.seconds);

interface RouteLatency {
  method: string;
  route: string;
  count: number;
  bucketCounts: number[];
}

/** The upper bound of the histogram bucket holding the route's 99th percentile, from the metrics JSON. */
async function serverP99Bound(server: BenchServer, route: string): Promise<string> {
  const snapshot = await api(server, "GET", "/api/v1/metrics");
  const buckets: number[] = snapshot.http.latency.bucketsSeconds;
  const entries = (snapshot.http.latency.routes as RouteLatency[]).filter((entry) => entry.method === "GET" && entry.route === route);
  const count = entries.reduce((sum, entry) => sum + entry.count, 0);
  const cumulative = buckets.map((_, index) => entries.reduce((sum, entry) => sum + (entry.bucketCounts[index] ?? 0), 0));
  const index = cumulative.findIndex((within) => within >= 0.99 * count);
  return index < 0 ? `> ${buckets.at(-1)! * 1000} ms` : `≤ ${buckets[index]! * 1000} ms`;
}

const binary = await buildIsolatedBinary();
const rows: string[][] = [];
try {
  const library = join(binary.scratch("web"), "library");
  const page = new Uint8Array(await sharp({ create: { width: 60, height: 90, channels: 3, background: "#335577" } }).jpeg().toBuffer());
  for (let index = 0; index < BOOKS; index++) {
    const series = `Series ${String(index % 100).padStart(3, "0")}`;
    mkdirSync(join(library, series), { recursive: true });
    const entries = { "id.txt": new TextEncoder().encode(String(index)), "001.jpg": page };
    writeFileSync(join(library, series, `${series} #${String(Math.floor(index / 100) + 1).padStart(3, "0")}.cbz`), zipSync(entries, { level: 0 }));
  }

  const server = await startBenchServer(binary, DATABASE);
  try {
    const created = await api(server, "POST", "/api/v1/libraries", { name: "bench", path: library });
    await scanToCompletion(server, created.id);
    const { data: series } = await api(server, "GET", "/api/v1/series?pageSize=1");
    const cookie = { cookie: await browserSessionCookie(server), accept: "text/html" };
    const bearer = { authorization: `Bearer ${server.token}` };
    // Each page beside the REST list that carries most of its data.
    const pairs: [string, string, string, string, string][] = [
      ["GET / (home)", "/", "/", "GET /api/v1/books?sort=createdAt,desc&pageSize=12", "/api/v1/books?sort=createdAt,desc&pageSize=12"],
      ["GET /libraries/{id} (series grid, 48)", `/libraries/${created.id}`, "/libraries/:id", "GET /api/v1/series?libraryId=...&pageSize=48", `/api/v1/series?libraryId=${created.id}&pageSize=48`],
      ["GET /series/{id} (100 books)", `/series/${series[0].id}`, "/series/:id", "GET /api/v1/series/{id}/books?pageSize=100", `/api/v1/series/${series[0].id}/books?pageSize=100`],
    ];
    for (const [label, path, route, referenceLabel, referencePath] of pairs) {
      const reference = await wrk(`${server.url}${referencePath}`, 1, SECONDS, bearer);
      const web = await wrk(`${server.url}${path}`, 1, SECONDS, cookie);
      rows.push([
        `${label}, ${BOOKS} books`,
        `p99 ${web.p99Ms.toFixed(1)} ms (${web.requestsPerSecond.toFixed(0)} req/s, ${web.errors} errors); server's histogram: p99 ${await serverP99Bound(server, route)}`,
        `${referenceLabel}: p99 ${reference.p99Ms.toFixed(1)} ms`,
        ratio(web.p99Ms, reference.p99Ms),
        "p99 < 30 ms",
      ]);
    }
  } finally {
    await server.stop();
    rmSync(library, { recursive: true, force: true });
  }
} finally {
  binary.remove();
}

console.log(`\nWeb pages on ${DATABASE} (${new Date().toISOString()})\n`);
console.log(markdownTable(["page", "result", "reference (same run)", "ratio", "target"], rows));
