/**
 * How a page's bytes leave the process (issue 14): the system calls per request and where the
 * CPU time goes, for nginx (`sendfile on`), for the bare Bun.serve floor (./bun-floor.ts, a
 * `Bun.file` slice: what Longbox returns for a stored page) and for Longbox itself (the
 * compiled binary on SQLite, page 1 of a CBZ whose page is stored, Bearer token), at a page size
 * below 1 MiB and one above it. The floor is the bound under Longbox's page serving, so this
 * names what limits both, and what Longbox adds to it.
 *
 * 1. `strace -c -f` attached to each server during `wrk -t2 -c8`: calls per request of each
 *    system call that happens at least once per ten requests.
 * 2. `perf record -e cpu-clock` (a software clock: no hardware counters needed) over the same
 *    load without strace: CPU time per request, split into kernel and user space, and the
 *    kernel functions that take the most of it.
 *
 *   bun bench/send-path.ts [--seconds 4] [--sizes 272,1500]
 *
 * Installs Debian's nginx-light, wrk, strace and linux-perf when they are missing (apt-get, as root).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { childrenOf, loadAverage, markdownTable, wrk } from "./measure";
import { noisyPage, startBunFloor, startNginx } from "./reference-pages";
import { api, scanToCompletion, startBenchServer } from "./server";
import { ensureDebianTools } from "./tools";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "4" }, sizes: { type: "string", default: "272,1500" } } });
const SECONDS = Number(values.seconds);
const SIZES_KB = values.sizes.split(",").map(Number);
const CONNECTIONS = 8;

interface Side {
  name: string;
  url(kilobytes: number): string;
  /** The processes that serve requests (nginx: its workers, not the master). */
  pids(): number[];
  headers?: Record<string, string>;
}


/** `strace -c` over every thread of `pids` while wrk loads `url`: calls per request by system call. */
async function syscallsPerRequest(pids: number[], url: string, headers: Record<string, string> = {}): Promise<{ requests: number; calls: Map<string, number> }> {
  const output = join(work, "strace.txt");
  const tracer = Bun.spawn(["strace", "-c", "-f", "-o", output, ...pids.flatMap((pid) => ["-p", String(pid)])], { stderr: "ignore" });
  await Bun.sleep(300); // attached
  const { requests, errors } = await wrk(url, CONNECTIONS, SECONDS, headers);
  if (errors > 0) throw new Error(`${url}: ${errors} failed requests under strace`);
  tracer.kill("SIGINT");
  await tracer.exited;
  const calls = new Map<string, number>();
  // Rows: % time, seconds, usecs/call, calls, [errors], syscall.
  for (const line of readFileSync(output, "utf8").split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5 || !/^\d/.test(fields[0]!) || fields.at(-1) === "total") continue;
    calls.set(fields.at(-1)!, Number(fields[3]));
  }
  return { requests, calls };
}

/** A `perf record` profile of `pids` while wrk loads `url`: µs per request in kernel and user space, and the top kernel functions. */
async function profilePerRequest(pids: number[], url: string, headers: Record<string, string> = {}) {
  const data = join(work, "perf.data");
  const frequency = 4000;
  const recorder = Bun.spawn(["perf", "record", "-e", "cpu-clock", "-F", String(frequency), "-o", data, "-p", pids.join(",")], { stdout: "ignore", stderr: "ignore" });
  await Bun.sleep(300);
  const { requests } = await wrk(url, CONNECTIONS, SECONDS, headers);
  recorder.kill("SIGINT");
  await recorder.exited;
  const report = Bun.spawnSync(["perf", "report", "-i", data, "--no-children", "--sort", "sym", "-q", "-n", "--stdio"], { stderr: "ignore" });
  const micros = (samples: number) => (samples * 1e6) / frequency / requests;
  let kernel = 0;
  let user = 0;
  const kernelSymbols: [string, number][] = [];
  // Rows: share, samples, [k] or [.], symbol.
  for (const line of report.stdout.toString().split("\n")) {
    const match = /^\s*[\d.]+%\s+(\d+)\s+\[(k|\.)\]\s+(\S+)/.exec(line);
    if (!match) continue;
    const samples = Number(match[1]);
    if (match[2] === "k") {
      kernel += samples;
      kernelSymbols.push([match[3]!, samples]);
    } else user += samples;
  }
  const top = kernelSymbols.slice(0, 4).map(([symbol, samples]) => `${symbol} ${micros(samples).toFixed(0)}`);
  return { kernel: micros(kernel), user: micros(user), top };
}

await ensureDebianTools({ nginx: "nginx-light", wrk: "wrk", strace: "strace", perf: "linux-perf" });
const binary = await buildIsolatedBinary();
const work = mkdtempSync(join(tmpdir(), "longbox-send-path-"));
const loadAtStart = loadAverage();
const syscallRows: string[][] = [];
const profileRows: string[][] = [];
try {
  // nginx workers run as www-data and must reach the files: every folder on the way needs o+x.
  for (let folder = work; folder !== dirname(folder); folder = dirname(folder)) chmodSync(folder, statSync(folder).mode | 0o005);
  mkdirSync(join(work, "www"), { mode: 0o755 });
  mkdirSync(join(work, "library", "Pages"), { recursive: true });
  const pages = new Map<number, Uint8Array>();
  for (const [index, kilobytes] of SIZES_KB.entries()) {
    pages.set(kilobytes, await noisyPage(kilobytes, index));
    writeFileSync(join(work, "www", `${kilobytes}.jpg`), pages.get(kilobytes)!, { mode: 0o644 });
    writeFileSync(join(work, "library", "Pages", `Pages #${index + 1}.cbz`), zipSync({ "001.jpg": pages.get(kilobytes)! }, { level: 0 }));
  }
  const nginx = await startNginx(work);
  const floor = await startBunFloor(join(work, "www"));
  const server = await startBenchServer(binary, "sqlite");
  try {
    const library = await api(server, "POST", "/api/v1/libraries", { name: "pages", path: join(work, "library") });
    await scanToCompletion(server, library.id);
    const { data: books } = await api(server, "GET", "/api/v1/books?pageSize=10&sort=title");
    const bookOf = (kilobytes: number) => books.find((book: { title: string }) => book.title === `Pages #${SIZES_KB.indexOf(kilobytes) + 1}`).id as string;
    const sides: Side[] = [
      { name: "nginx (sendfile on, 2 workers)", url: (kilobytes) => `${nginx.url}/${kilobytes}.jpg`, pids: () => childrenOf(nginx.pid) },
      { name: "bare Bun.serve (Bun.file slice)", url: (kilobytes) => `${floor.url}/${kilobytes}.jpg`, pids: () => [floor.pid] },
      {
        name: "Longbox (Bearer)",
        url: (kilobytes) => `${server.url}/api/v1/books/${bookOf(kilobytes)}/pages/1`,
        pids: () => [server.pid, ...childrenOf(server.pid)],
        headers: { authorization: `Bearer ${server.token}` },
      },
    ];
    for (const kilobytes of SIZES_KB) {
      for (const side of sides) {
        const url = side.url(kilobytes);
        const answer = await fetch(url, { headers: side.headers });
        if (answer.status !== 200 || Buffer.compare(new Uint8Array(await answer.arrayBuffer()), pages.get(kilobytes)!) !== 0) {
          throw new Error(`${side.name} did not answer ${url} with the page's bytes (status ${answer.status})`);
        }
        await wrk(url, CONNECTIONS, 2, side.headers); // unmeasured: Bun compiles its hot code first, as in a server running for a while
        const { requests, calls } = await syscallsPerRequest(side.pids(), url, side.headers);
        const perRequest = [...calls]
          .map(([name, count]): [string, number] => [name, count / requests])
          .filter(([, count]) => count >= 0.1)
          .sort((a, b) => b[1] - a[1])
          .map(([name, count]) => `${name} ${count.toFixed(1)}`);
        syscallRows.push([`${kilobytes} KB`, side.name, perRequest.join(", ")]);
        const profile = await profilePerRequest(side.pids(), url, side.headers);
        profileRows.push([
          `${kilobytes} KB`,
          side.name,
          `${(profile.kernel + profile.user).toFixed(0)} µs`,
          `${profile.kernel.toFixed(0)} µs / ${profile.user.toFixed(0)} µs`,
          profile.top.join(", "),
        ]);
      }
    }
  } finally {
    await server.stop();
    await floor.stop();
    await nginx.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
  binary.remove();
}

console.log(`\nSending a page (${new Date().toISOString()}; load average ${loadAtStart} at the start, ${loadAverage()} at the end; wrk -t2 -c${CONNECTIONS}, ${SECONDS} s a run)\n`);
console.log(markdownTable(["page", "server", "system calls per request (strace -c -f)"], syscallRows));
console.log();
console.log(markdownTable(["page", "server", "CPU per request (perf, cpu-clock)", "kernel / user", "kernel functions, µs per request"], profileRows));
