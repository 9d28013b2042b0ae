/**
 * Scanning benchmarks (issue 5), on the compiled binary run alone (scripts/isolated-binary.ts),
 * SQLite or PostgreSQL:
 *
 * 1. Fresh normal scan of a generated library (default 2,000 CBZ books of 20 pages in 100 series
 *    folders, about 1 MB each), catalogue only (thumbnails wait until the scan ends), as a ratio
 *    to `sha256sum` over the same files in the same run (page cache warm for both): one
 *    `sha256sum`, and one per core in parallel (`xargs -P<cores>`), the hashing limit.
 *    Then the background thumbnails of those books, against `vipsthumbnail` (libvips-tools) making
 *    the same thumbnails (height 400, WebP) from the same cover pages.
 * 1b. The first 200 of those books: Longbox's fresh scan against calibre's `calibredb add` of the
 *    same files into an empty calibre library.
 * 2. A larger library (default 10,000 small books of 20 pages): peak RSS of the server during its
 *    fresh scan; p99 of `GET /api/v1/books?pageSize=50` while that scan runs (one client asking
 *    about 20 times a second, like a person paging through the web UI); then a normal rescan of the unchanged library, with `find -printf` over the same tree
 *    (a walk that stats every file) as the reference.
 *
 *   bun bench/scan.ts [--books 2000] [--large-books 10000] [--database sqlite|postgres]
 *
 * Installs Debian's libvips-tools and calibre when they are missing (apt-get, as root).
 */
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { availableParallelism } from "node:os";
import { generateLibrary, makePages } from "./generate";
import { loadAverage, markdownTable, ratio } from "./measure";
import { api, peakRssMiB, startBenchServer, type BenchServer } from "./server";
import { ensureDebianTools } from "./tools";

const { values } = parseArgs({
  options: {
    books: { type: "string", default: "2000" },
    "large-books": { type: "string", default: "10000" },
    database: { type: "string", default: "sqlite" },
  },
});
const BOOKS = Number(values.books);
const LARGE_BOOKS = Number(values["large-books"]);
const DATABASE = values.database === "postgres" ? "postgres" : "sqlite";

async function timed(command: string[], env?: Record<string, string>): Promise<number> {
  return (await timedWithCpu(command, env)).ms;
}

/** Wall time and CPU time (user + system, with the children it waited for) of a command, in ms. */
async function timedWithCpu(command: string[], env?: Record<string, string>): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now();
  const child = Bun.spawn(command, { stdout: "ignore", stderr: "inherit", env: env ? { ...process.env, ...env } : undefined });
  if ((await child.exited) !== 0) throw new Error(`${command[0]} failed`);
  const ms = performance.now() - started;
  return { ms, cpuMs: Number(child.resourceUsage()?.cpuTime.total ?? NaN) / 1000 };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc: all its threads, or only `thread`. */
function processCpuMs(pid: number, thread?: number): number {
  const fields = readFileSync(thread ? `/proc/${pid}/task/${thread}/stat` : `/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/**
 * Runs one scan to its end; returns its duration in ms (from the scan's own timestamps, so how
 * often it is asked does not change the figure, only the load: every 250 ms, like a client
 * polling for progress; at 20 ms it was 50 requests a second of three statements each).
 */
async function scanToEnd(server: BenchServer, libraryId: string, whileRunning?: () => Promise<void>): Promise<number> {
  const started = await api(server, "POST", `/api/v1/libraries/${libraryId}/scan`);
  let status = started;
  let background: Promise<void> | undefined;
  while (!["completed", "failed", "cancelled"].includes(status.status)) {
    if (status.status === "running" && whileRunning && !background) background = whileRunning();
    await Bun.sleep(250);
    status = await api(server, "GET", `/api/v1/libraries/${libraryId}/scan-status`);
  }
  await background;
  if (status.status !== "completed") throw new Error(`scan ${status.status}: ${status.failureReason}`);
  return Date.parse(status.completedAt) - Date.parse(status.startedAt);
}

/** Until the background thumbnail queue has made (or failed) `books` thumbnails; the time it took, in ms. */
async function thumbnailsToEnd(server: BenchServer, books: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const { scans } = await api(server, "GET", "/api/v1/metrics");
    if (scans.thumbnailsMade + scans.thumbnailsFailed >= books) {
      if (scans.thumbnailsFailed > 0) throw new Error(`${scans.thumbnailsFailed} thumbnails failed`);
      return performance.now() - started;
    }
    await Bun.sleep(20);
  }
}

/** The byte size of the first book's thumbnail, as the API serves it. */
async function thumbnailSize(server: BenchServer, libraryId: string): Promise<number> {
  const { data } = await api(server, "GET", `/api/v1/books?libraryId=${libraryId}&pageSize=1`);
  const response = await fetch(`${server.url}/api/v1/books/${data[0].id}/thumbnail`, { headers: { authorization: `Bearer ${server.token}` } });
  return (await response.arrayBuffer()).byteLength;
}

await ensureDebianTools({ vipsthumbnail: "libvips-tools", calibredb: "calibre" });
const loadAtStart = loadAverage();
const CORES = availableParallelism();
const binary = await buildIsolatedBinary();
const rows: string[][] = [];
try {
  // 1. Fresh scan against sha256sum, then thumbnails against vipsthumbnail.
  const root = binary.scratch("library");
  const pages = await makePages(20, 300, 450);
  const files = await generateLibrary(root, BOOKS, 100, pages);
  await timed(["sha256sum", ...files.slice(0, 1)]);
  const allFiles = `find '${root}' -name '*.cbz' -print0`;
  await timed(["sh", "-c", `${allFiles} | xargs -0 cat > /dev/null`]); // warm the page cache
  const sha = await timedWithCpu(["sh", "-c", `${allFiles} | xargs -0 sha256sum > /dev/null`]);
  const shaMs = sha.ms;
  const parallelShaMs = await timed(["sh", "-c", `${allFiles} | xargs -0 -n 50 -P${CORES} sha256sum > /dev/null`]);
  // The cover of every book is its page 1: vipsthumbnail makes the same thumbnails from those bytes.
  const covers = binary.scratch("covers");
  for (let index = 0; index < BOOKS; index++) await Bun.write(join(covers, `${index}.jpg`), pages[0]!);
  const thumbnailsOut = binary.scratch("vips-thumbnails");
  // One vipsthumbnail process for all the covers (xargs passes them all at once), one image at a
  // time, with libvips's own threads (as many as cores) inside each image.
  const vips = await timedWithCpu(["sh", "-c", `cd '${covers}' && ls | xargs vipsthumbnail --size x400 -o '${thumbnailsOut}/%s.webp[Q=80]'`]);
  const vipsMs = vips.ms;
  const vipsBytes = Bun.file(join(thumbnailsOut, "0.webp")).size;
  const server = await startBenchServer(binary, DATABASE);
  try {
    const library = await api(server, "POST", "/api/v1/libraries", { name: "bench", path: root });
    const scanCpuBefore = { all: processCpuMs(server.pid), main: processCpuMs(server.pid, server.pid) };
    const scanMs = await scanToEnd(server, library.id);
    const scanCpu = { all: processCpuMs(server.pid) - scanCpuBefore.all, main: processCpuMs(server.pid, server.pid) - scanCpuBefore.main };
    const cpuBefore = processCpuMs(server.pid);
    const thumbnailsMs = await thumbnailsToEnd(server, BOOKS);
    const thumbnailCpuMs = (processCpuMs(server.pid) - cpuBefore) / BOOKS;
    const thumbnailBytes = await thumbnailSize(server, library.id);
    const size = files.length ? (Bun.file(files[0]!).size / 1e6).toFixed(1) : 0;
    rows.push([`fresh normal scan, ${BOOKS} books of 20 pages (${size} MB each)`, `${(scanMs / 1000).toFixed(2)} s`, `sha256sum over the same files: ${(shaMs / 1000).toFixed(2)} s`, ratio(scanMs, shaMs), "≤ 2.00×"]);
    rows.push([`the same scan against hashing on all ${CORES} cores`, `${(scanMs / 1000).toFixed(2)} s`, `sha256sum × ${CORES} (xargs -P${CORES}): ${(parallelShaMs / 1000).toFixed(2)} s`, ratio(scanMs, parallelShaMs), "≤ 1.20×"]);
    // The server thread (JavaScript: analysis, database writes) is the scan's limit when it is busy most of the scan.
    rows.push([`CPU time of that scan: server thread / all threads`, `${(scanCpu.main / 1000).toFixed(2)} s / ${(scanCpu.all / 1000).toFixed(2)} s`, `scan's wall time: ${(scanMs / 1000).toFixed(2)} s`, `${Math.round((scanCpu.main / scanMs) * 100)}% busy`, "-"]);
    // Independent of the load: on an idle machine the scan can take no less than its server
    // thread's CPU time, nor than its total CPU time spread over the cores; sha256sum × cores no
    // less than its CPU time spread over the cores.
    const idleScanMs = Math.max(scanCpu.main, scanCpu.all / CORES);
    rows.push([`the scan's least time on idle cores, from its CPU times`, `${(idleScanMs / 1000).toFixed(2)} s`, `sha256sum's CPU time / ${CORES}: ${(sha.cpuMs / CORES / 1000).toFixed(2)} s`, ratio(idleScanMs, sha.cpuMs / CORES), "≤ 1.20×"]);
    rows.push([`background thumbnails of those ${BOOKS} books (x400, WebP)`, `${(BOOKS / (thumbnailsMs / 1000)).toFixed(0)} /s`, `vipsthumbnail, same covers: ${(BOOKS / (vipsMs / 1000)).toFixed(0)} /s`, ratio(vipsMs, thumbnailsMs), "≥ 0.80×"]);
    rows.push([`CPU time per thumbnail (server process, all threads)`, `${thumbnailCpuMs.toFixed(1)} ms`, `vipsthumbnail: ${(vips.cpuMs / BOOKS).toFixed(1)} ms`, ratio(vips.cpuMs / BOOKS, thumbnailCpuMs), "-"]);
    rows.push([`size of one thumbnail`, `${(thumbnailBytes / 1024).toFixed(1)} KiB`, `vipsthumbnail: ${(vipsBytes / 1024).toFixed(1)} KiB`, "-", "-"]);
  } finally {
    await server.stop();
  }

  // 1b. 200 of those books: Longbox against calibredb add.
  const few = binary.scratch("few");
  const fewFiles = files.slice(0, 200);
  fewFiles.forEach((file, index) => copyFileSync(file, join(few, `${String(index).padStart(3, "0")}.cbz`)));
  rmSync(root, { recursive: true, force: true });
  const calibreLibrary = binary.scratch("calibre");
  const calibreMs = await timed(["calibredb", "add", "--recurse", "--with-library", calibreLibrary, few], { QT_QPA_PLATFORM: "offscreen", HOME: binary.scratch("calibre-home") });
  const fewServer = await startBenchServer(binary, DATABASE);
  try {
    const library = await api(fewServer, "POST", "/api/v1/libraries", { name: "few", path: few });
    const fewMs = await scanToEnd(fewServer, library.id);
    rows.push([`fresh normal scan, ${fewFiles.length} of those books`, `${(fewMs / 1000).toFixed(2)} s`, `calibredb add of the same files: ${(calibreMs / 1000).toFixed(2)} s`, `${(calibreMs / fewMs).toFixed(1)}× faster`, "≥ 5× faster"]);
  } finally {
    await fewServer.stop();
    rmSync(few, { recursive: true, force: true });
  }

  // 2. The large library: RSS and API latency during the scan, then the unchanged rescan.
  const largeRoot = binary.scratch("large");
  await generateLibrary(largeRoot, LARGE_BOOKS, 100, await makePages(20, 120, 180));
  const large = await startBenchServer(binary, DATABASE);
  try {
    const library = await api(large, "POST", "/api/v1/libraries", { name: "large", path: largeRoot });
    const latencies: number[] = [];
    let scanning = true;
    const probe = async () => {
      while (scanning) {
        const started = performance.now();
        const response = await fetch(`${large.url}/api/v1/books?pageSize=50`, { headers: { authorization: `Bearer ${large.token}` } });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        await Bun.sleep(50);
      }
    };
    let probing: Promise<void> | undefined;
    const freshMs = await scanToEnd(large, library.id, async () => {
      probing = probe();
    });
    scanning = false;
    await probing;
    const rss = peakRssMiB(large.pid);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? NaN;
    const walkMs = await timed(["sh", "-c", `find '${largeRoot}' -type f -printf '%s %T@ %p\\n' > /dev/null`]);
    const rescanMs = await scanToEnd(large, library.id);
    rows.push([`fresh normal scan, ${LARGE_BOOKS} small books`, `${(freshMs / 1000).toFixed(1)} s`, "-", "-", "-"]);
    rows.push([`peak RSS of the server during that scan`, `${rss.toFixed(0)} MiB`, "-", "-", "< 300 MiB"]);
    rows.push([`p99 of GET /api/v1/books?pageSize=50 during that scan (${latencies.length} requests)`, `${p99.toFixed(1)} ms`, "-", "-", "< 100 ms"]);
    rows.push([`normal rescan of the unchanged ${LARGE_BOOKS} books`, `${(rescanMs / 1000).toFixed(2)} s`, `find -printf over the tree: ${(walkMs / 1000).toFixed(2)} s`, ratio(rescanMs, walkMs), "< 2 s"]);
  } finally {
    await large.stop();
    rmSync(largeRoot, { recursive: true, force: true });
  }
} finally {
  binary.remove();
}

console.log(`\nScanning on ${DATABASE} (${new Date().toISOString()}; load average ${loadAtStart} at the start, ${loadAverage()} at the end)\n`);
console.log(markdownTable(["measure", "result", "reference (same run)", "ratio", "target"], rows));
