/**
 * Cold start of the real server: time from exec to the first 200 on GET /health, for the
 * compiled binary (built by build.ts, run alone with a minimal environment, see
 * scripts/isolated-binary.ts) and, as the reference measured in the same run, the same server
 * from source (`bun src/main.ts serve`). Also the binary's size and the server's RSS right
 * after that first answer. SQLite, a database already migrated, native addons already
 * unpacked (the very first start is reported apart).
 *
 *   bun bench/cold-start.ts [--runs 15]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { markdownTable, median, ratio } from "./measure";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
const projectRoot = join(import.meta.dir, "..");

interface Start {
  ms: number;
  rssMiB: number;
}

/** Starts the server, polls /health until it answers 200, then stops it with SIGTERM. */
async function coldStart(command: string[], env: Record<string, string>, cwd: string, port: number): Promise<Start> {
  const started = performance.now();
  const child = Bun.spawn([...command, "--port", String(port)], { cwd, env, stdout: "ignore", stderr: "inherit" });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}`);
      if (performance.now() - started > 30_000) throw new Error(`${command.join(" ")}: no 200 on /health within 30 s`);
      const status = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status,
        () => 0, // not listening yet
      );
      if (status === 200) break;
      await Bun.sleep(2);
    }
    const ms = performance.now() - started;
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]);
    return { ms, rssMiB: rssKiB / 1024 };
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
}

/** A port nobody listens on right now. */
function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}

const binary = await buildIsolatedBinary();
try {
  const dataDir = binary.scratch("data");
  const configPath = join(dataDir, "config.yaml");
  writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", workers: 1, data_dir: dataDir }, logging: { level: "warn" } }));
  const serveArgs = ["serve", "--config", configPath];
  const binaryCommand = [binary.path, ...serveArgs];
  const sourceCommand = [process.execPath, join(projectRoot, "src", "main.ts"), ...serveArgs];
  const sourceEnv = { ...binary.env, PATH: process.env.PATH ?? "" };

  // The first start ever: unpacks the native addons and creates and migrates the database.
  const first = await coldStart(binaryCommand, binary.env, binary.workDir, freePort());
  // Warm-up for the sources (Bun's transpiler cache), not counted.
  await coldStart(sourceCommand, sourceEnv, projectRoot, freePort());
  const binaryStarts: Start[] = [];
  const sourceStarts: Start[] = [];
  for (let run = 0; run < runs; run++) {
    // Interleaved, so that both see the same machine load.
    binaryStarts.push(await coldStart(binaryCommand, binary.env, binary.workDir, freePort()));
    sourceStarts.push(await coldStart(sourceCommand, sourceEnv, projectRoot, freePort()));
  }

  const row = (name: string, starts: Start[]) => {
    const times = starts.map((start) => start.ms);
    return [
      name,
      `${median(times).toFixed(0)} ms`,
      `${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)} ms`,
      ratio(median(times), median(sourceStarts.map((start) => start.ms))),
      `${median(starts.map((start) => start.rssMiB)).toFixed(0)} MiB`,
    ];
  };
  const size = Bun.file(binary.path).size;
  const gzipped = Bun.gzipSync(await Bun.file(binary.path).bytes()).length;
  console.log(`Cold start, exec to first 200 on /health, ${runs} runs each (median, range):\n`);
  console.log(
    markdownTable(
      ["server", "median", "range", "vs. source", "RSS after start"],
      [row("compiled binary", binaryStarts), row("`bun src/main.ts serve` (reference)", sourceStarts)],
    ),
  );
  console.log(`\nFirst start of the binary (unpacks native addons, creates the database): ${first.ms.toFixed(0)} ms`);
  console.log(`Binary size: ${(size / 2 ** 20).toFixed(1)} MiB (${(gzipped / 2 ** 20).toFixed(1)} MiB gzipped)`);
} finally {
  binary.remove();
}
