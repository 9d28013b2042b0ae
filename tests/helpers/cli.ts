/** Runs the `longbox` command line from source (`bun src/main.ts ...`), or any program, as a child process. */
import { join } from "node:path";

export const PROJECT_ROOT = join(import.meta.dir, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Variables added to a minimal environment (PATH and HOME of the test run). */
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

export function runLongbox(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return runProgram([process.execPath, join(PROJECT_ROOT, "src", "main.ts"), ...args], options);
}

export async function runProgram(command: string[], options: RunOptions = {}): Promise<CliResult> {
  const child = Bun.spawn(command, {
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
