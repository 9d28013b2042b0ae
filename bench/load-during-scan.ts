/**
 * API latency while a deep scan runs (issue #11, item 9), on the compiled binary run alone
 * (scripts/isolated-binary.ts), SQLite and PostgreSQL in the same run: the same generated
 * library is catalogued, then a deep scan (every book hashed and analysed again) starts and
 * `wrk -c32 --latency` asks `GET /api/v1/books?pageSize=50` for a fixed time while it runs.
 * The figure is SQLite's p99 as a ratio to PostgreSQL's (target: at most 2x).
 *
 *   bun bench/load-during-scan.ts [--books 2000] [--seconds 20] [--connections 32]
 *
 * Needs Debian's wrk and a local PostgreSQL on 5432 (as bench/server.ts).
 */
import { parseArgs } from "node:util";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { generateLibrary, makePages } from "./generate";
import { markdownTable, ratio, wrk, type WrkResult } from "./measure";
import { api, startBenchServer, type BenchServer } from "./server";

const { values } = parseArgs({
  options: {
    books: { type: "string", default: "2000" },
    seconds: { type: "string", default: "20" },
    connections: { type: "string", default: "32" },
  },
});
const BOOKS = Number(values.books);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);

async function waitForScan(server: BenchServer, libraryId: string, scanId: string) {
  for (;;) {
    const status = await api(server, "GET", `/api/v1/libraries/${libraryId}/scan-status`);
    if (status.scanId === scanId && ["completed", "failed", "cancelled"].includes(status.status)) return status;
    await Bun.sleep(200);
  }
}

interface Outcome extends WrkResult {
  scanStillRunning: boolean;
}

async function measure(binary: Awaited<ReturnType<typeof buildIsolatedBinary>>, kind: "sqlite" | "postgres", root: string): Promise<Outcome> {
  const server = await startBenchServer(binary, kind);
  try {
    const library = await api(server, "POST", "/api/v1/libraries", { name: "load", path: root });
    const first = await api(server, "POST", `/api/v1/libraries/${library.id}/scan`);
    const catalogued = await waitForScan(server, library.id, first.scanId);
    if (catalogued.status !== "completed") throw new Error(`first scan ${catalogued.status}: ${catalogued.failureReason}`);
    const deep = await api(server, "POST", `/api/v1/libraries/${library.id}/scan?mode=deep`);
    // A 30 s timeout: slow answers are what is measured, not errors.
    const result = await wrk(`${server.url}/api/v1/books?pageSize=50`, CONNECTIONS, SECONDS, { authorization: `Bearer ${server.token}` }, 30);
    const status = await api(server, "GET", `/api/v1/libraries/${library.id}/scan-status`);
    const scanStillRunning = status.scanId === deep.scanId && status.status === "running";
    await waitForScan(server, library.id, deep.scanId);
    return { ...result, scanStillRunning };
  } finally {
    await server.stop();
  }
}

const binary = await buildIsolatedBinary();
const rows: string[][] = [];
try {
  const root = binary.scratch("library");
  await generateLibrary(root, BOOKS, 100, await makePages(20, 120, 180));
  const sqlite = await measure(binary, "sqlite", root);
  const postgres = await measure(binary, "postgres", root);
  const describe = (outcome: Outcome) =>
    `p99 ${outcome.p99Ms.toFixed(0)} ms, max ${outcome.maxMs.toFixed(0)} ms, ${outcome.requestsPerSecond.toFixed(0)} req/s, ${outcome.errors} errors${outcome.scanStillRunning ? "" : " (the scan ended before wrk)"}`;
  rows.push([
    `GET /api/v1/books?pageSize=50, ${CONNECTIONS} clients for ${SECONDS} s during a deep scan of ${BOOKS} books`,
    `SQLite: ${describe(sqlite)}`,
    `PostgreSQL: ${describe(postgres)}`,
    ratio(sqlite.p99Ms, postgres.p99Ms),
    "≤ 2.00×",
  ]);
} finally {
  binary.remove();
}

console.log(`\nAPI latency during a deep scan (${new Date().toISOString()})\n`);
console.log(markdownTable(["measure", "result", "reference (same run)", "ratio", "target"], rows));
