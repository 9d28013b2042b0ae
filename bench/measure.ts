/** Small helpers shared by the benchmarks in bench/. */

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
