/** wrk (Debian's `wrk` package) as the benchmarks use it: a run and its summary. */

export interface WrkResult {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
}

/** Runs wrk for `seconds` and reads its summary (requests/sec, the 99% latency line of --latency). */
export async function wrk(url: string, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<WrkResult> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
  const child = Bun.spawn(["wrk", `-t${Math.min(2, connections)}`, `-c${connections}`, `-d${seconds}s`, "--latency", ...headerArgs, url], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`wrk failed:\n${output}`);
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(output);
  const p99Ms = p99 ? Number(p99[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[p99[2] as "us" | "ms" | "s"] : NaN;
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  return { requestsPerSecond: rate, p99Ms, errors };
}
