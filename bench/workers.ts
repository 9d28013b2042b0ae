/**
 * Page serving with `serve --workers 2` against one process and nginx, in the same run (issue
 * 18): one CBZ page of about 272 KB, 16 concurrent clients (`wrk -c16`), Bearer JWT of the admin.
 * Two servers of the compiled binary (scripts/isolated-binary.ts), each on its own SQLite data
 * folder with the same library, one with `--workers 1`, one with `--workers 2`, and nginx
 * (`sendfile on`, 2 workers) serving the same bytes as a static file. Runs rotate (nginx, one
 * process, two workers) twice so that every side sees the same machine; each figure is the mean
 * of its two runs. Each side must first answer 200 with exactly the page's bytes, and wrk's count
 * of non-2xx/3xx answers must stay 0.
 *
 *   bun bench/workers.ts [--seconds 5]
 */
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { interleaved, markdownTable, ratio, wrk } from "./measure";
import { noisyPage, startNginx } from "./reference-pages";
import { api, startBenchServer, type BenchServer } from "./server";
import { ensureDebianTools } from "./tools";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" } } });
const SECONDS = Number(values.seconds);
const CONNECTIONS = 16;

/** The URL of the library's only page on `server`, once its scan completed and it answers the page's bytes. */
async function pageUrl(server: BenchServer, library: string, page: Uint8Array): Promise<string> {
  const created = await api(server, "POST", "/api/v1/libraries", { name: "bench", path: library });
  await api(server, "POST", `/api/v1/libraries/${created.id}/scan`);
  for (let status = { status: "pending" }; status.status !== "completed"; await Bun.sleep(50)) {
    status = await api(server, "GET", `/api/v1/libraries/${created.id}/scan-status`);
    if (status.status === "failed") throw new Error("the scan failed");
  }
  const { data } = await api(server, "GET", `/api/v1/books?libraryId=${created.id}`);
  const url = `${server.url}/api/v1/books/${data[0].id}/pages/1`;
  const body = new Uint8Array(await (await fetch(url, { headers: { authorization: `Bearer ${server.token}` } })).arrayBuffer());
  if (Buffer.compare(body, page) !== 0) throw new Error(`${url} did not answer the page's exact bytes`);
  return url;
}

await ensureDebianTools({ nginx: "nginx-light", wrk: "wrk" });
const binary = await buildIsolatedBinary();
try {
  const work = binary.scratch("workers");
  // nginx workers run as www-data and must reach the file: every folder on the way needs o+x.
  for (let folder = work; folder !== dirname(folder); folder = dirname(folder)) chmodSync(folder, statSync(folder).mode | 0o005);
  mkdirSync(join(work, "www"), { recursive: true });
  chmodSync(join(work, "www"), 0o755);
  const page = await noisyPage(272);
  writeFileSync(join(work, "www", "page.jpg"), page);
  chmodSync(join(work, "www", "page.jpg"), 0o644);
  const library = join(work, "library");
  mkdirSync(join(library, "Pages"), { recursive: true });
  writeFileSync(join(library, "Pages", "Pages #1.cbz"), zipSync({ "001.jpg": page }, { level: 0 }));

  const nginx = await startNginx(work);
  const single = await startBenchServer(binary, "sqlite", 1);
  const pair = await startBenchServer(binary, "sqlite", 2);
  try {
    const staticUrl = `${nginx.url}/page.jpg`;
    const staticBody = new Uint8Array(await (await fetch(staticUrl)).arrayBuffer());
    if (Buffer.compare(staticBody, page) !== 0) throw new Error("nginx did not answer the page's exact bytes");
    const [singleUrl, pairUrl] = await Promise.all([pageUrl(single, library, page), pageUrl(pair, library, page)]);
    const sides = await interleaved({
      "nginx (static file, 2 workers)": () => wrk(staticUrl, CONNECTIONS, SECONDS),
      "Longbox, one process": () => wrk(singleUrl, CONNECTIONS, SECONDS, { authorization: `Bearer ${single.token}` }),
      "Longbox, --workers 2": () => wrk(pairUrl, CONNECTIONS, SECONDS, { authorization: `Bearer ${pair.token}` }),
    });
    const oneProcess = sides["Longbox, one process"];
    const rows = Object.entries(sides).map(([label, result]) => [
      label,
      `${result.requestsPerSecond.toFixed(0)} req/s`,
      `${result.p99Ms.toFixed(1)} ms`,
      String(result.errors),
      ratio(result.requestsPerSecond, oneProcess.requestsPerSecond),
    ]);
    console.log(`\nPage of ${(page.length / 1000).toFixed(0)} KB, ${CONNECTIONS} connections, ${SECONDS} s x 2 runs per side\n`);
    console.log(markdownTable(["Server", "Throughput", "p99 (worst run)", "Errors", "vs one process"], rows));
  } finally {
    await pair.stop();
    await single.stop();
    await nginx.stop();
    rmSync(work, { recursive: true, force: true });
  }
} finally {
  binary.remove();
}
