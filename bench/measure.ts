/** Small helpers shared by the benchmarks in bench/. */
import { readFileSync } from "node:fs";

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function ratio(value: number, reference: number): string {
  return `${(value / reference).toFixed(2)}×`;
}

/** A Markdown table: one header row, then the rows. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export interface WrkResult {
  /** Requests completed in the run. */
  requests: number;
  /** CPU time the server's processes spent per request (µs), when the run was given their pids. */
  cpuMicrosPerRequest?: number;
  requestsPerSecond: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

/**
 * Runs wrk (Debian's `wrk`) and reads its summary: requests/sec, the 99% line of --latency, the
 * maximum. Requests slower than `timeoutSeconds` (wrk's default 2) count as errors, not latency.
 */
export async function wrk(
  url: string,
  connections: number,
  seconds: number,
  headers: Record<string, string> = {},
  timeoutSeconds = 2,
): Promise<WrkResult> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
  const child = Bun.spawn(["wrk", `-t${Math.min(2, connections)}`, `-c${connections}`, `-d${seconds}s`, "--timeout", `${timeoutSeconds}s`, "--latency", ...headerArgs, url], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`wrk failed:\n${output}`);
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(output);
  const latency = /Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s)/.exec(output);
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0) + Number(/Socket errors:.*timeout (\d+)/.exec(output)?.[1] ?? 0);
  return {
    requests: Number(/(\d+) requests in/.exec(output)?.[1]),
    requestsPerSecond: rate,
    p99Ms: p99 ? toMs(p99[1]!, p99[2]!) : NaN,
    maxMs: latency ? toMs(latency[1]!, latency[2]!) : NaN,
    errors,
  };
}

/**
 * CPU time (user + system, every thread) used so far by these processes and their children's
 * processes (nginx's workers): read from /proc, so it works for any program on Linux.
 */
export function cpuSecondsOf(pids: number[]): number {
  const ticksPerSecond = 100; // USER_HZ: 100 on every Linux architecture Longbox ships for
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    let children: number[];
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      children = childrenOf(pid);
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command (which may hold spaces) in parentheses: utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
    if (children.length > 0) ticks += cpuSecondsOf(children) * ticksPerSecond;
  }
  return ticks / ticksPerSecond;
}

/**
 * The live children of a process's main thread (nginx's workers, Longbox's web process): enough
 * for the servers measured here. Throws when the process is gone.
 */
export function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number);
}

/** `wrk`, and the CPU time the server's processes (`pids`) spent per request during the run. */
export async function wrkWithCpu(pids: number[], ...run: Parameters<typeof wrk>): Promise<WrkResult> {
  const before = cpuSecondsOf(pids);
  const result = await wrk(...run);
  return { ...result, cpuMicrosPerRequest: ((cpuSecondsOf(pids) - before) / result.requests) * 1e6 };
}

/**
 * Alternates the sides' runs (A B C A B C), so that every side sees the same machine, and
 * averages each side: mean rate, worst p99 and maximum, errors and CPU time summed over the runs.
 */
export async function interleaved<Side extends string>(sides: Record<Side, () => Promise<WrkResult>>): Promise<Record<Side, WrkResult>> {
  const names = Object.keys(sides) as Side[];
  const runs = new Map<Side, WrkResult[]>(names.map((name) => [name, []]));
  for (let round = 0; round < 2; round++) {
    for (const name of names) runs.get(name)!.push(await sides[name]());
  }
  const mean = (results: WrkResult[]): WrkResult => ({
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    requestsPerSecond: results.reduce((sum, result) => sum + result.requestsPerSecond, 0) / results.length,
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    maxMs: Math.max(...results.map((result) => result.maxMs)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    cpuMicrosPerRequest:
      results.reduce((sum, result) => sum + (result.cpuMicrosPerRequest ?? NaN) * result.requests, 0) /
      results.reduce((sum, result) => sum + result.requests, 0),
  });
  return Object.fromEntries(names.map((name) => [name, mean(runs.get(name)!)])) as Record<Side, WrkResult>;
}

/** The load average over 1, 5 and 15 minutes, as /proc/loadavg says it. */
export const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
