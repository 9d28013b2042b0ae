/**
 * The compiled server for benchmarks: started alone (scripts/isolated-binary.ts) on SQLite or a
 * throwaway PostgreSQL database, with an admin signed in, and a small JSON client for it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import type { IsolatedBinary } from "../scripts/isolated-binary";
import { startServerProcess } from "../scripts/server-process";

const POSTGRES_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres";
const PASSWORD = "benchmark password";

export interface BenchServer {
  url: string;
  pid: number;
  token: string;
  stop(): Promise<void>;
}

/** `workers`: `serve --workers` (default 1: one process). */
export async function startBenchServer(binary: IsolatedBinary, kind: "sqlite" | "postgres", workers = 1): Promise<BenchServer> {
  const dataDir = binary.scratch("data");
  let database: Record<string, unknown> = { type: "sqlite" };
  let dropDatabase = async () => undefined as void;
  if (kind === "postgres") {
    const name = `longbox_bench_${process.pid}_${workers}`;
    const admin = postgres(POSTGRES_ADMIN, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE "${name}"`);
    await admin.end();
    database = { type: "postgres", postgres: { url: `postgres://postgres@127.0.0.1:5432/${name}` } };
    dropDatabase = async () => {
      const cleanup = postgres(POSTGRES_ADMIN, { max: 1, onnotice: () => undefined });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await cleanup.end();
    };
  }
  const configPath = join(dataDir, "config.yaml");
  writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", port: 0, workers, data_dir: dataDir }, database }));
  const { url, child } = await startServerProcess([binary.path, "serve", "--config", configPath], { cwd: binary.workDir, env: binary.env });
  const json = { "content-type": "application/json" };
  await fetch(`${url}/api/v1/setup`, { method: "POST", headers: json, body: JSON.stringify({ username: "bench", password: PASSWORD }) });
  const login = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ username: "bench", password: PASSWORD }) });
  const { token } = (await login.json()) as { token: string };
  return {
    url,
    pid: child.pid,
    token,
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
      await dropDatabase();
    },
  };
}

export async function api(server: BenchServer, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return response.json();
}

/** Starts a scan of the library and waits until it completes (throws if it fails). */
export async function scanToCompletion(server: BenchServer, libraryId: string): Promise<void> {
  const started = await api(server, "POST", `/api/v1/libraries/${libraryId}/scan`);
  for (let status = started; status.status !== "completed"; await Bun.sleep(50)) {
    status = await api(server, "GET", `/api/v1/libraries/${libraryId}/scan-status`);
    if (status.status === "failed") throw new Error(status.failureReason);
  }
}

/** Signs in through the web interface's login form; returns the session cookie (`name=value`). */
export async function browserSessionCookie(server: Pick<BenchServer, "url">): Promise<string> {
  const response = await fetch(`${server.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    body: new URLSearchParams({ username: "bench", password: PASSWORD }),
    redirect: "manual",
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`signing in through /login failed: ${response.status}`);
  return cookie;
}

/** Peak resident set size of a process so far (VmHWM), in MiB. */
export const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
