/**
 * Starts a `longbox serve` process (from source or the compiled binary) and waits for its
 * "longbox listening url=..." log line ("longbox worker running" for `--role worker`, whose
 * url is empty). Shared by tests and benchmarks that need a real server
 * process (crash recovery, the binary smoke test, benchmarks).
 */
export interface ServerProcess {
  /** Empty for a worker (no HTTP). */
  url: string;
  child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process has written to stdout so far (its log lines). */
  output(): string;
}

export async function startServerProcess(
  command: string[],
  options: { cwd?: string; env: Record<string, string>; timeoutMs?: number },
): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child = Bun.spawn(command, { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(child.stderr).text();
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server did not log "longbox listening" within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    void (async () => {
      const decoder = new TextDecoder();
      const reader = child.stdout.getReader();
      // Reads to the end, so that the server never blocks on a full pipe.
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        output += decoder.decode(chunk.value, { stream: true });
        const match = /longbox (?:listening url=(\S+)|worker running)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] ?? "");
        }
      }
      clearTimeout(timer);
      reject(new Error(`the server exited before listening:\n${output}${await stderr}`));
    })();
  });
  return { url, child, output: () => output };
}
