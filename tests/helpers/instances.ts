/**
 * Several `longbox serve` processes (instances) on one test database and one configuration:
 * `start(...args)` starts one more (from source; e.g. `start("--role", "worker")`), `stop()`
 * ends them all and drops the database.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess, type ServerProcess } from "../../scripts/server-process";
import { deepMerge } from "../../src/config/load";
import { PROJECT_ROOT } from "./cli";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases";
import { TEST_AUTH } from "./server";

/** `settings` are merged into the configuration file; `env` variables are added to every process's environment. */
export async function instancesOnOneDatabase(kind: DatabaseKind, settings: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "longbox-instances-"));
  const database = await createTestDatabase(kind, join(dir, "data"));
  const configPath = writeInstanceConfig(dir, database, settings);
  const command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath];
  const started: ServerProcess[] = [];
  return {
    database,
    /** application.data_dir of every instance (thumbnails, covers). */
    dataDir: join(dir, "data"),
    async start(...args: string[]): Promise<ServerProcess> {
      const server = await startServerProcess([...command, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
      started.push(server);
      return server;
    },
    async stop(): Promise<void> {
      for (const server of started) {
        server.child.kill("SIGTERM");
        await server.child.exited;
      }
      await database.drop();
    },
  };
}

/** Writes `<dir>/config.yaml` for a `serve` process on `database` (one process, a free port) with `settings` merged in; returns its path. */
export function writeInstanceConfig(dir: string, database: Pick<TestDatabase, "config">, settings: Record<string, unknown> = {}): string {
  const configPath = join(dir, "config.yaml");
  const base = {
    application: { host: "127.0.0.1", port: 0, workers: 1, data_dir: join(dir, "data") },
    database: database.config,
    auth: TEST_AUTH,
  };
  writeFileSync(configPath, JSON.stringify(deepMerge(base, settings)));
  return configPath;
}

export type Instances = Awaited<ReturnType<typeof instancesOnOneDatabase>>;
