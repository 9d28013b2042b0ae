/**
 * A PostgreSQL cluster of the test's own (initdb in a temp folder, on a free port), for tests
 * that stop and start the database server. The shared cluster on 5432 is never touched.
 * Runs the server as the `postgres` user when the tests run as root (initdb refuses root).
 * `stop` is an immediate shutdown: connections drop as they would when the server dies.
 */
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BIN = join("/usr/lib/postgresql", readdirSync("/usr/lib/postgresql").sort().at(-1)!, "bin");

export interface OwnPostgres {
  port: number;
  /** The `database` section of a Longbox configuration pointing at this cluster. */
  config: Record<string, unknown>;
  stop(): void;
  start(): void;
  destroy(): void;
}

function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

export function startOwnPostgres(): OwnPostgres {
  const dir = mkdtempSync(join(tmpdir(), "longbox-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim();
    const gid = Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const spawn = (command: string[]) =>
    Bun.spawnSync(asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command, { stdout: "pipe", stderr: "pipe" });
  const running = () => spawn([join(BIN, "pg_ctl"), "-D", data, "status"]).exitCode === 0;
  const run = (...command: string[]) => {
    const result = spawn(command);
    if (result.exitCode !== 0) throw new Error(`${command.join(" ")} failed: ${result.stderr.toString()}${result.stdout.toString()}`);
  };
  const port = freePort();
  run(join(BIN, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync");
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => {
    if (!running()) run(join(BIN, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start");
  };
  start();
  return {
    port,
    config: { type: "postgres", postgres: { url: `postgres://postgres@127.0.0.1:${port}/postgres` } },
    stop: () => run(join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"),
    start,
    destroy() {
      if (running()) run(join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
