/**
 * An installation that has had its first admin refuses to start on a catalogue without users
 * (an empty SQLite file, a PostgreSQL database without Longbox's tables) instead of opening the
 * first-admin setup to whoever connects first: `serve` and `migrate` exit 1 saying what to
 * restore; `serve --start-fresh` starts over on purpose. A first start that stopped before the
 * first admin existed starts normally on an empty catalogue; a corrupt SQLite file is called damaged.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startServerProcess } from "../../scripts/server-process";
import { PASSWORD } from "../helpers/auth";
import { PROJECT_ROOT, runLongbox } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../helpers/databases";
import { writeInstanceConfig } from "../helpers/instances";
import { processClient } from "../helpers/server-processes";
import { queryDatabase } from "../helpers/sql";

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

/** A data folder, a database and a configuration for `serve`. */
async function installation(kind: (typeof DATABASE_KINDS)[number]) {
  const dir = mkdtempSync(join(tmpdir(), "longbox-installation-"));
  const database = await createTestDatabase(kind, join(dir, "data"));
  databases.push(database);
  const configPath = writeInstanceConfig(dir, database);
  const serve = async (...args: string[]) => {
    const server = await startServerProcess([process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath, ...args], {
      env: { PATH: process.env.PATH ?? "" },
    });
    const setup = (username: string) => processClient(server.url)("POST", "/api/v1/setup", undefined, { username, password: PASSWORD });
    const stop = async () => {
      server.child.kill("SIGTERM");
      expect(await server.child.exited).toBe(0);
    };
    return { setup, stop };
  };
  /** The catalogue lost: the SQLite file truncated to nothing, or every table of the PostgreSQL database gone. */
  const loseCatalogue = async () => {
    if ("sqliteFile" in database.target) {
      for (const suffix of ["-wal", "-shm"]) rmSync(database.target.sqliteFile + suffix, { force: true });
      truncateSync(database.target.sqliteFile, 0);
    } else {
      // Longbox's tables and drizzle's record of the migrations: a database as new.
      await queryDatabase(database.target, "DROP SCHEMA public CASCADE; CREATE SCHEMA public; DROP SCHEMA IF EXISTS drizzle CASCADE");
    }
  };
  return { dir, database, configPath, serve, loseCatalogue, run: (...args: string[]) => runLongbox([...args, "--config", configPath], { timeoutMs: 30_000 }) };
}

for (const kind of DATABASE_KINDS) {
  describe(`a damaged installation [${kind}]`, () => {
    test("a catalogue lost after the first admin stops the start with what to restore; --start-fresh starts over", async () => {
      const setUp = await installation(kind);
      const first = await setUp.serve();
      expect((await first.setup("admin")).status).toBe(201);
      await first.stop();
      expect(existsSync(join(setUp.dir, "data", "installation.json"))).toBe(true);

      await setUp.loseCatalogue();
      for (const command of [["serve", "--port", "0"], ["migrate"]]) {
        const refused = await setUp.run(...command);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("already had its first admin");
        expect(refused.stderr).toContain(kind === "sqlite" ? "restore the SQLite file" : "restore the PostgreSQL database");
        expect(refused.stderr).toContain("--start-fresh");
        expect(refused.stdout + refused.stderr).not.toContain("longbox listening");
      }

      const fresh = await setUp.serve("--start-fresh");
      expect((await fresh.setup("new-admin")).status).toBe(201);
      await fresh.stop();
      // The new catalogue has its first admin: an ordinary start, no flag needed.
      const again = await setUp.serve();
      expect((await again.setup("intruder")).status).toBe(409);
      await again.stop();
    }, 120_000);

    test("a first start that stopped before the first admin existed starts normally on an empty catalogue", async () => {
      const setUp = await installation(kind);
      const first = await setUp.serve();
      await first.stop();
      expect(existsSync(join(setUp.dir, "data", "installation.json"))).toBe(false);
      await setUp.loseCatalogue();
      const second = await setUp.serve();
      expect((await second.setup("admin")).status).toBe(201);
      await second.stop();
    }, 120_000);
  });
}

describe.skipIf(!DATABASE_KINDS.includes("sqlite"))("a corrupt SQLite file", () => {
  test("is called damaged, not unwritable", async () => {
    const setUp = await installation("sqlite");
    const file = (setUp.database.target as { sqliteFile: string }).sqliteFile;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, crypto.getRandomValues(new Uint8Array(16_384)));
    const result = await setUp.run("serve", "--port", "0");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the database file is damaged");
    expect(result.stderr).not.toContain("is its folder writable");
  }, 60_000);
});
