/**
 * Reading benchmarks (issue 6), on the compiled binary run alone (scripts/isolated-binary.ts):
 *
 * 1. Page serving from a CBZ with 16 concurrent clients (`wrk -c16`) against nginx serving the
 *    same page bytes as a static file, in the same run: the request-rate ratio.
 * 2. p99 latency of the list endpoints on a 10,000-book catalogue, one client at a time
 *    (`wrk -c1 --latency`: the latency a person paging through the catalogue sees), and the
 *    same under 4 concurrent clients for the throughput: books, series, a series' books,
 *    libraries.
 *
 *   bun bench/reading.ts [--database sqlite|postgres] [--books 10000] [--seconds 10]
 *
 * Needs Debian's nginx and wrk (`apt-get install nginx-light wrk`).
 */
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import sharp from "sharp";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { markdownTable, ratio } from "./measure";
import { wrk as wrkFor } from "./wrk";
import { api, scanToCompletion, startBenchServer } from "./server";

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

const wrk = (url: string, connections: number, headers: Record<string, string> = {}) => wrkFor(url, connections, SECONDS, headers);

/** nginx serving one folder on a free port, as a reference for static bytes. */
async function startNginx(root: string): Promise<{ url: string; stop(): Promise<void> }> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const conf = join(root, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 2; daemon off; pid ${root}/nginx.pid; error_log ${root}/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; server { listen 127.0.0.1:${port}; root ${root}/www; } }`,
  );
  const child = Bun.spawn(["nginx", "-c", conf, "-p", root], { stdout: "ignore", stderr: "inherit" });
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined)) !== undefined) break;
    await Bun.sleep(20);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGQUIT");
      await child.exited;
    },
  };
}

async function noisyPage(): Promise<Uint8Array> {
  const image = sharp({ create: { width: 1000, height: 1500, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } });
  return new Uint8Array(await image.jpeg({ quality: 80 }).toBuffer());
}

const binary = await buildIsolatedBinary();
const rows: string[][] = [];
try {
  const work = binary.scratch("reading");
  // nginx workers run as www-data and must reach the files: every folder on the way needs o+x.
  for (let folder = work; folder !== dirname(folder); folder = dirname(folder)) chmodSync(folder, statSync(folder).mode | 0o005);
  const page = await noisyPage();
  mkdirSync(join(work, "www"), { recursive: true });
  writeFileSync(join(work, "www", "page.jpg"), page);
  chmodSync(join(work, "www"), 0o755);
  chmodSync(join(work, "www", "page.jpg"), 0o644);

  // A library: one book with the real page, and BOOKS small books for the list endpoints.
  const library = join(work, "library");
  const small = new Uint8Array(await sharp({ create: { width: 60, height: 90, channels: 3, background: "#335577" } }).jpeg().toBuffer());
  for (let index = 0; index < BOOKS; index++) {
    const series = `Series ${String(index % 100).padStart(3, "0")}`;
    mkdirSync(join(library, series), { recursive: true });
    const entries: Record<string, Uint8Array> = { "id.txt": new TextEncoder().encode(String(index)), "001.jpg": index === 0 ? page : small };
    writeFileSync(join(library, series, `${series} #${String(Math.floor(index / 100) + 1).padStart(3, "0")}.cbz`), zipSync(entries, { level: 0 }));
  }

  const server = await startBenchServer(binary, DATABASE);
  const nginx = await startNginx(work);
  try {
    const created = await api(server, "POST", "/api/v1/libraries", { name: "bench", path: library });
    await scanToCompletion(server, created.id);
    const { data: pageBooks } = await api(server, "GET", `/api/v1/books?libraryId=${created.id}&sort=createdAt,asc&pageSize=1`);
    const bookId = pageBooks[0].id as string;
    const auth = { authorization: `Bearer ${server.token}` };

    const reference = await wrk(`${nginx.url}/page.jpg`, 16);
    const pages = await wrk(`${server.url}/api/v1/books/${bookId}/pages/1`, 16, auth);
    rows.push([
      `CBZ page (${(page.length / 1024).toFixed(0)} KiB), 16 connections`,
      `${pages.requestsPerSecond.toFixed(0)} req/s (p99 ${pages.p99Ms.toFixed(1)} ms, ${pages.errors} errors)`,
      `nginx, same bytes as a static file: ${reference.requestsPerSecond.toFixed(0)} req/s (${reference.errors} errors)`,
      ratio(pages.requestsPerSecond, reference.requestsPerSecond),
      "≥ 0.50×",
    ]);

    const { data: seriesPage } = await api(server, "GET", "/api/v1/series?pageSize=1");
    const lists: [string, string][] = [
      ["GET /api/v1/books?pageSize=50", "/api/v1/books?pageSize=50"],
      ["GET /api/v1/books?pageSize=50&page=150", "/api/v1/books?pageSize=50&page=150"],
      ["GET /api/v1/books?q=series 042&pageSize=50", "/api/v1/books?q=series%20042&pageSize=50"],
      ["GET /api/v1/series?pageSize=50", "/api/v1/series?pageSize=50"],
      ["GET /api/v1/series/{id}/books?pageSize=50", `/api/v1/series/${seriesPage[0].id}/books?pageSize=50`],
      ["GET /api/v1/libraries", "/api/v1/libraries"],
    ];
    for (const [label, path] of lists) {
      const single = await wrk(`${server.url}${path}`, 1, auth);
      const loaded = await wrk(`${server.url}${path}`, 4, auth);
      rows.push([
        `${label}, ${BOOKS} books`,
        `p99 ${single.p99Ms.toFixed(1)} ms, one client (${single.errors} errors)`,
        `4 clients: p99 ${loaded.p99Ms.toFixed(1)} ms, ${loaded.requestsPerSecond.toFixed(0)} req/s`,
        "-",
        "p99 < 50 ms",
      ]);
    }
  } finally {
    await nginx.stop();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
} finally {
  binary.remove();
}

console.log(`\nReading on ${DATABASE} (${new Date().toISOString()})\n`);
console.log(markdownTable(["measure", "result", "reference (same run)", "ratio", "target"], rows));
