/** Runs the `longbox` command line from source (`bun src/main.ts ...`) as a child process. */
import { join } from "node:path";

export const PROJECT_ROOT = join(import.meta.dir, "..", "..");
export const FIXTURES = join(PROJECT_ROOT, "..", "shared", "fixtures");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runLongbox(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = Bun.spawn([process.execPath, join(PROJECT_ROOT, "src", "main.ts"), ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}
