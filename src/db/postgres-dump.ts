/**
 * PostgreSQL dumps (./dumps.ts) through the server's own tools, which must be on the PATH and
 * of at least the server's major version (an older pg_dump refuses a newer server): pg_dump in
 * its custom format (one consistent snapshot while the server runs), pg_restore into a new
 * database beside the configured one, then both renamed in one transaction. Restoring needs a
 * role that may create databases, and the `postgres` database to connect to meanwhile.
 * Passwords reach the tools through PGPASSWORD, never their command lines.
 */
import postgres from "postgres";
import type { Config } from "../config/schema";

type PostgresSettings = Config["database"]["postgres"];

/** PostgreSQL's longest identifier, in bytes. */
const MAX_NAME_BYTES = 63;
/** Swaps tried while a forced restore waits for the sessions it ended to go. */
const SWAP_ATTEMPTS = 10;
/** "object_in_use": the database has sessions, so it cannot be renamed. */
const OBJECT_IN_USE = "55006";

export class PostgresDumps {
  readonly kind = "postgres";
  readonly fileName = "database.pgdump";
  private readonly target: Connection;

  constructor(settings: PostgresSettings) {
    this.target = connectionOf(settings);
  }

  async dump(file: string): Promise<{ schemaVersion: number }> {
    const { schemaVersion, major } = await this.withClient(this.target, async (client) => ({
      schemaVersion: await schemaVersionIn(client),
      major: await serverMajor(client),
    }));
    const pgDump = await toolAtLeast("pg_dump", major);
    await runTool(pgDump, ["--format=custom", "--no-password", `--file=${file}`, `--dbname=${this.target.url}`], this.target.password);
    return { schemaVersion };
  }

  async check(file: string): Promise<void> {
    const pgRestore = await this.restoreTool();
    await runTool(pgRestore, ["--list", file], undefined).catch((error: Error) => {
      throw new Error(`the PostgreSQL dump in the backup cannot be read: ${error.message}`, { cause: error });
    });
  }

  async inUse(): Promise<string | undefined> {
    return this.withClient(this.maintenance(), async (client) => {
      const [row] = await client`select count(*)::int as sessions from pg_stat_activity where datname = ${this.target.database} and pid <> pg_backend_pid()`;
      const sessions = Number(row?.sessions ?? 0);
      if (sessions === 0) return undefined;
      return `the PostgreSQL database "${this.target.database}" has ${sessions} other session(s) (is a Longbox server running on it?)`;
    });
  }

  async replace(file: string, { schemaVersion, force }: { schemaVersion: number; force: boolean }): Promise<void> {
    const pgRestore = await this.restoreTool();
    const suffix = crypto.randomUUID().slice(0, 8);
    const staged = aside(this.target.database, `restore_${suffix}`);
    const replaced = aside(this.target.database, `replaced_${suffix}`);
    await this.withClient(this.maintenance(), async (admin) => {
      await admin.unsafe(`create database ${quote(staged)}`);
      try {
        const stagedConnection = { ...this.target, database: staged, url: withDatabase(this.target.url, staged) };
        await runTool(pgRestore, ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--no-password", `--dbname=${stagedConnection.url}`, file], this.target.password);
        const found = await this.withClient(stagedConnection, schemaVersionIn);
        if (found !== schemaVersion) throw new Error(`the backup's database has schema version ${found}, its manifest says ${schemaVersion}`);
        await this.swap(admin, staged, replaced, force);
      } catch (error) {
        await admin.unsafe(`drop database if exists ${quote(staged)} with (force)`).catch(() => undefined);
        throw error;
      }
      await admin.unsafe(`drop database if exists ${quote(replaced)} with (force)`);
    });
  }

  /** Renames the configured database aside and the staged one in its place, in one transaction. */
  private async swap(admin: postgres.Sql, staged: string, replaced: string, force: boolean): Promise<void> {
    const target = this.target.database;
    for (let attempt = 1; ; attempt++) {
      // A server's pool reconnects at once: end its sessions before each try.
      if (force) await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${target} and pid <> pg_backend_pid()`;
      try {
        await admin.begin(async (tx) => {
          const [exists] = await tx`select 1 from pg_database where datname = ${target}`;
          if (exists) await tx.unsafe(`alter database ${quote(target)} rename to ${quote(replaced)}`);
          await tx.unsafe(`alter database ${quote(staged)} rename to ${quote(target)}`);
        });
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== OBJECT_IN_USE) throw error;
        if (!force) throw new Error(`the PostgreSQL database "${target}" is in use (is a Longbox server running on it?); stop it, or restore with --force`, { cause: error });
        if (attempt === SWAP_ATTEMPTS) throw new Error(`the PostgreSQL database "${target}" stayed in use: its sessions came back faster than they could be ended`, { cause: error });
        await Bun.sleep(100 * attempt);
      }
    }
  }

  private async restoreTool(): Promise<string> {
    return toolAtLeast("pg_restore", await this.withClient(this.maintenance(), serverMajor));
  }

  /** The `postgres` database of the same server, for what cannot run inside the target. */
  private maintenance(): Connection {
    return { ...this.target, database: "postgres", url: withDatabase(this.target.url, "postgres") };
  }

  private async withClient<T>(connection: Connection, work: (client: postgres.Sql) => Promise<T>): Promise<T> {
    const client = postgres(connection.url, { max: 1, onnotice: () => undefined, connect_timeout: 10, password: connection.password });
    try {
      return await work(client);
    } finally {
      await client.end({ timeout: 5 });
    }
  }
}

/** A database to reach: a libpq URL without its password, and the password apart. */
interface Connection {
  url: string;
  password: string | undefined;
  database: string;
}

function connectionOf(settings: PostgresSettings): Connection {
  if (settings.url) {
    const url = new URL(settings.url);
    const password = url.password ? decodeURIComponent(url.password) : undefined;
    url.password = "";
    const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || decodeURIComponent(url.username) || "postgres";
    return { url: withDatabase(url.toString(), database), password, database };
  }
  const url = new URL(`postgres://${encodeURIComponent(settings.username)}@${settings.host}:${settings.port}/`);
  return { url: withDatabase(url.toString(), settings.database), password: settings.password || undefined, database: settings.database };
}

function withDatabase(address: string, database: string): string {
  const url = new URL(address);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** `name` with a suffix, cut to PostgreSQL's identifier length. */
function aside(name: string, suffix: string): string {
  let base = name;
  while (Buffer.byteLength(`${base}_${suffix}`) > MAX_NAME_BYTES) base = base.slice(0, -1);
  return `${base}_${suffix}`;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

async function serverMajor(client: postgres.Sql): Promise<number> {
  const [row] = await client`select current_setting('server_version_num')::int as version`;
  return Math.floor(Number(row?.version) / 10_000);
}

async function schemaVersionIn(client: postgres.Sql): Promise<number> {
  const [table] = await client`select to_regclass('drizzle.__drizzle_migrations') as name`;
  if (!table?.name) return 0;
  const [row] = await client`select count(*)::int as applied from drizzle.__drizzle_migrations`;
  return Number(row?.applied ?? 0);
}

/** The tool's path when one of at least `major` is on the PATH; else a clear refusal. */
async function toolAtLeast(name: "pg_dump" | "pg_restore", major: number): Promise<string> {
  const path = Bun.which(name);
  const install = `install the PostgreSQL ${major} client tools (e.g. postgresql-client-${major}) or put them on the PATH`;
  if (!path) throw new Error(`${name} is not on the PATH: PostgreSQL backups and restores need ${name} ${major} or newer (the server's major version); ${install}`);
  const version = (await runTool(path, ["--version"], undefined)).trim();
  // "pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
  const found = Number(/^\S+ \([^)]*\) (\d+)/.exec(version)?.[1] ?? 0);
  if (found < major) throw new Error(`${path} is version ${found} ("${version}"), older than the PostgreSQL server (${major}); ${install}`);
  return path;
}

/** Runs a PostgreSQL tool; resolves with its output, rejects with its error output. */
async function runTool(path: string, args: string[], password: string | undefined): Promise<string> {
  const env: Record<string, string | undefined> = { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: "10" };
  if (password === undefined) delete env.PGPASSWORD;
  const child = Bun.spawn([path, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${path.split("/").pop()} failed (exit ${code}): ${stderr.trim().split("\n").slice(-5).join(" ") || "no message"}`);
  return stdout;
}
