/**
 * What Longbox adds to a stored page over the bare Bun floor (issue 14), in CPU time per
 * request, with less noise than bench/reading.ts can have: each server is pinned to the second
 * core and wrk (with this script) to the first, so that the two never share a core, and the
 * sides alternate for `--rounds` short runs, each figure being the median of its runs.
 *
 * Sides, all serving the same 272 KB page (by default) to `wrk -c16`:
 * - the bare Bun.serve floor (./bun-floor.ts: a `Bun.file` slice and an ETag, nothing else);
 * - the floor with Longbox's file check (`--confine`: the file's real path must lie inside
 *   the root), so that its cost shows apart;
 * - Longbox, the compiled binary on SQLite, page 1 of a CBZ whose page is stored, Bearer token
 *   of the admin (so that the visibility rule is the shortest: an admin sees every series).
 * The difference between the second and the third ("over the side above") is what the rest of
 * Longbox costs: routing and validation (Elysia), credentials, the book's lookup, headers and metrics.
 *
 *   bun bench/page-overhead.ts [--kilobytes 272] [--rounds 8] [--seconds 3]
 *
 * Needs two cores or more (taskset); installs Debian's wrk when it is missing (apt-get, as root).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { loadAverage, markdownTable, median, wrk, wrkWithCpu } from "./measure";
import { noisyPage, startBunFloor } from "./reference-pages";
import { api, scanToCompletion, startBenchServer } from "./server";
import { ensureDebianTools } from "./tools";

const { values } = parseArgs({ options: { kilobytes: { type: "string", default: "272" }, rounds: { type: "string", default: "8" }, seconds: { type: "string", default: "3" } } });
const KILOBYTES = Number(values.kilobytes);
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = 16;

interface Side {
  name: string;
  pid: number;
  url: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

/** Every thread of `pid`, and the threads it starts later, on CPU `cpu` only. */
function pin(pid: number, cpu: number): void {
  const run = Bun.spawnSync(["taskset", "-a", "-p", "-c", String(cpu), String(pid)], { stdout: "ignore", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`taskset failed: ${run.stderr.toString()}`);
}

if (navigator.hardwareConcurrency < 2) throw new Error("this benchmark needs two cores: one for the servers, one for wrk");
await ensureDebianTools({ wrk: "wrk" });
const binary = await buildIsolatedBinary();
const sides: Side[] = [];
try {
  const work = binary.scratch("page-overhead");
  const page = await noisyPage(KILOBYTES, 1);
  mkdirSync(join(work, "www"));
  writeFileSync(join(work, "www", "page.jpg"), page);
  mkdirSync(join(work, "library", "Pages"), { recursive: true });
  writeFileSync(join(work, "library", "Pages", "Pages #1.cbz"), zipSync({ "001.jpg": page }, { level: 0 }));

  for (const confine of [false, true]) {
    const floor = await startBunFloor(join(work, "www"), { confine });
    sides.push({ name: confine ? "floor with Longbox's file check" : "bare Bun.serve floor", pid: floor.pid, url: `${floor.url}/page.jpg`, headers: {}, stop: floor.stop });
  }
  const server = await startBenchServer(binary, "sqlite");
  const longbox: Side = { name: "Longbox (admin, Bearer)", pid: server.pid, url: "", headers: { authorization: `Bearer ${server.token}` }, stop: server.stop };
  sides.push(longbox);
  const library = await api(server, "POST", "/api/v1/libraries", { name: "pages", path: join(work, "library") });
  await scanToCompletion(server, library.id);
  const { data: books } = await api(server, "GET", "/api/v1/books?pageSize=1");
  longbox.url = `${server.url}/api/v1/books/${books[0].id}/pages/1`;

  for (const side of sides) {
    const response = await fetch(side.url, { headers: side.headers });
    const body = new Uint8Array(await response.arrayBuffer());
    if (response.status !== 200 || Buffer.compare(body, page) !== 0) throw new Error(`${side.name} did not answer the page (${response.status})`);
    pin(side.pid, 1);
  }
  pin(process.pid, 0); // and wrk, which inherits it
  for (const side of sides) await wrk(side.url, CONNECTIONS, 2, side.headers); // warm-up

  const cpu = new Map<Side, number[]>(sides.map((side) => [side, []]));
  const rates = new Map<Side, number[]>(sides.map((side) => [side, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of sides) {
      const result = await wrkWithCpu([side.pid], side.url, CONNECTIONS, SECONDS, side.headers);
      if (result.errors > 0) throw new Error(`${side.name}: ${result.errors} failed requests`);
      cpu.get(side)!.push(result.cpuMicrosPerRequest!);
      rates.get(side)!.push(result.requestsPerSecond);
    }
  }
  const floorCpu = median(cpu.get(sides[0]!)!);
  console.log(`\n${KILOBYTES} KB page, ${ROUNDS} rounds of ${SECONDS} s, servers on CPU 1, wrk -c${CONNECTIONS} on CPU 0, load average ${loadAverage()}\n`);
  console.log(
    markdownTable(
      ["side", "CPU per request (median)", "over the floor", "over the side above", "requests/s (median)", "CPU per request, each run"],
      sides.map((side, index) => {
        const micros = median(cpu.get(side)!);
        const above = index === 0 ? micros : median(cpu.get(sides[index - 1]!)!);
        return [
          side.name,
          `${micros.toFixed(0)} µs`,
          `${(micros - floorCpu).toFixed(0)} µs`,
          `${(micros - above).toFixed(0)} µs`,
          median(rates.get(side)!).toFixed(0),
          cpu.get(side)!.map((value) => value.toFixed(0)).join(" "),
        ];
      }),
    ),
  );
} finally {
  for (const side of sides) await side.stop();
  binary.remove();
}
