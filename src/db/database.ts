/**
 * Opens the configured database and hides which one it is. Everything above src/db talks to
 * repositories; the repositories build queries once against `Database.handle()`, typed as the
 * PostgreSQL flavour of drizzle (see ./schema/dialects.ts for why the SQLite side fits).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Database as SqliteClient } from "bun:sqlite";
import { sql } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePostgres, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Config } from "../config/schema";
import { unavailability } from "./availability";
import { applyMigrations } from "./migrate";
import { openListener, type PostgresListener, reconnectDelaySeconds } from "./pg-listener";
import * as pgSchema from "./schema/pg";
import * as sqliteSchema from "./schema/sqlite";

export type Tables = typeof pgSchema;
/** The query handle repositories use: the root connection or the current transaction. */
export type Db = PostgresJsDatabase<Record<string, never>>;
export type Dialect = "sqlite" | "postgres";

export interface Database {
  readonly dialect: Dialect;
  readonly tables: Tables;
  /** The current transaction's handle when called inside `transaction`, else the connection. */
  handle(): Db;
  /** The connection itself, never a transaction: for statements prepared once (./repositories/prepared.ts). */
  readonly root: Db;
  /**
   * Runs `work` atomically. Nested calls join the outer transaction. On SQLite (one connection)
   * transactions are serialised by a queue; repositories therefore do every write inside one.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `statement`, ONE statement prepared on `root` (atomic by itself), as a transaction of
   * its own without BEGIN and COMMIT (two round trips fewer on PostgreSQL): counted like a
   * transaction, and it moves writeGeneration. Refused inside a transaction, which a statement
   * run on `root` would not be part of.
   */
  autocommit<T>(statement: () => Promise<T>): Promise<T>;
  /**
   * Moves on every time a transaction of this process ends (committed or rolled back): a read
   * remembered at one value is still current while it has not moved (./repositories/recent-reads.ts).
   */
  writeGeneration(): number;
  /**
   * How many transactions of this process committed, and how many the database refused (it is
   * away, full or read-only: ./availability.ts), since it opened: what this process's own work
   * has lately learnt about whether the database takes writes (src/http/health.ts).
   */
  transactionOutcomes(): TransactionOutcomes;
  migrate(): Promise<void>;
  /** Whether Longbox's tables are there (before `migrate`: an empty database has none). */
  hasCatalogue(): Promise<boolean>;
  /** Refreshes the query planner's statistics after bulk changes (a scan). */
  optimize(): Promise<void>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  /**
   * Throws when the database answers but cannot be written (a read-only file or folder, a full
   * disk, a read-only PostgreSQL standby): a service that cannot write is not healthy. Changes
   * nothing, so neither moves writeGeneration (request caches stay) nor counts as an outcome.
   */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
  /**
   * PostgreSQL only (undefined on SQLite): messages between every process connected to the
   * database (LISTEN/NOTIFY), for events that must reach other instances.
   */
  readonly notifications?: Notifications;
}

export interface TransactionOutcomes {
  committed: number;
  refused: number;
}

export interface Notifications {
  /** Calls `receive` with each payload sent on `channel`; resolves once listening. */
  listen(channel: string, receive: (payload: string) => void): Promise<void>;
  /** At most 8000 bytes (PostgreSQL's limit). */
  notify(channel: string, payload: string): Promise<void>;
}

const AUTOCOMMIT_IN_TRANSACTION = "Database.autocommit inside a transaction: the statement would not be part of it";

/** Distinct statements kept prepared; the oldest go first beyond this (query shapes are few). */
const PREPARED_STATEMENTS_MAX = 500;

/**
 * drizzle prepares every statement anew on each call (its bun-sqlite session calls
 * `prepare`); a fresh scan spent as much time in SQLite preparing its statements as in running
 * them. Prepared statements are kept by SQL text and reused: drizzle binds the parameters on
 * every run and never finalizes, and bun:sqlite runs a statement to its end synchronously, so
 * callers never share one mid-run.
 */
function reuseStatements(client: SqliteClient): void {
  const prepare = client.prepare.bind(client);
  const statements = new Map<string, ReturnType<typeof prepare>>();
  client.prepare = ((sqlText: string, ...rest: unknown[]) => {
    if (rest.length > 0) return prepare(sqlText, ...(rest as []));
    let statement = statements.get(sqlText);
    if (!statement) {
      statement = prepare(sqlText);
      if (statements.size >= PREPARED_STATEMENTS_MAX) statements.delete(statements.keys().next().value!);
      statements.set(sqlText, statement);
    }
    return statement;
  }) as typeof client.prepare;
}

export function openDatabase(config: Config, sqliteFile: string): Database {
  return config.database.type === "postgres" ? openPostgres(config) : openSqlite(sqliteFile);
}

function openSqlite(file: string): Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const client = new SqliteClient(file, { create: true, strict: true });
  client.exec("PRAGMA journal_mode = WAL");
  client.exec("PRAGMA foreign_keys = ON");
  client.exec("PRAGMA busy_timeout = 5000");
  client.exec("PRAGMA synchronous = NORMAL");
  reuseStatements(client);
  const drizzleDb = drizzleSqlite(client);
  const root = drizzleDb as unknown as Db;
  const scope = new AsyncLocalStorage<true>();
  const ledger = transactionLedger();
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `work` in a transaction of its own once those queued before it ended (one connection). */
  const exclusively = <T>(work: () => Promise<T>): Promise<T> => {
    const run = async () => {
      client.exec("BEGIN IMMEDIATE");
      try {
        const result = await scope.run(true, work);
        client.exec("COMMIT");
        return result;
      } catch (error) {
        // SQLite rolls back by itself on some errors (a full disk, I/O errors): a second
        // ROLLBACK would fail and hide the real cause.
        try {
          if (client.inTransaction) client.exec("ROLLBACK");
        } catch {
          // The original error says more than a failed rollback.
        }
        throw error;
      }
    };
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    dialect: "sqlite",
    tables: sqliteSchema as unknown as Tables,
    handle: () => root,
    root,
    writeGeneration: ledger.writeGeneration,
    transactionOutcomes: ledger.outcomes,
    transaction<T>(work: () => Promise<T>): Promise<T> {
      if (scope.getStore()) return work();
      return ledger.track(exclusively(work));
    },
    autocommit<T>(statement: () => Promise<T>): Promise<T> {
      if (scope.getStore()) return Promise.reject(new Error(AUTOCOMMIT_IN_TRANSACTION));
      // One connection: its writes still wait their turn, and a failed statement rolls back whole.
      return ledger.track(exclusively(statement));
    },
    migrate: async () => applyMigrations({ dialect: "sqlite", db: drizzleDb }),
    hasCatalogue: async () => client.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'").get() !== null,
    optimize: async () => {
      client.exec("PRAGMA optimize");
    },
    ping: async () => {
      client.query("SELECT 1").get();
    },
    checkWritable() {
      // A real (tiny) write: rewriting the header's user version to the value it has.
      return exclusively(async () => {
        const { user_version } = client.query("PRAGMA user_version").get() as { user_version: number };
        client.exec(`PRAGMA user_version = ${Number(user_version)}`);
      });
    },
    close: async () => client.close(),
  };
}

function openPostgres(config: Config): Database {
  const settings = config.database.postgres;
  // A server that is down must be noticed in seconds (requests answer 503 with Retry-After),
  // not after the driver's default 30 s; connections reopen by themselves when it returns.
  // The driver waits before each new connection attempt, growing 3x per failure up to 20 s by
  // default: after an outage of a few seconds, queries (and the LISTEN connection that relays
  // events) then stayed away for up to 20 s more, and a query that waited through the outage
  // looked to the scanner's retries like one slow success. Capped at a second.
  const options: postgres.Options<{}> = { max: settings.max_connections, onnotice: () => undefined, connect_timeout: 3, backoff: reconnectDelaySeconds };
  const connect = (extra: postgres.Options<{}> = {}) =>
    settings.url
      ? postgres(settings.url, { ...options, ...extra })
      : postgres({
          ...options,
          ...extra,
          host: settings.host,
          port: settings.port,
          database: settings.database,
          username: settings.username,
          password: settings.password || undefined,
        });
  const client = connect();
  // Opened on the first LISTEN (a process that relays no events needs no extra connection).
  let listener: PostgresListener | undefined;
  const root = drizzlePostgres(client);
  const scope = new AsyncLocalStorage<Db>();
  const ledger = transactionLedger();

  return {
    dialect: "postgres",
    tables: pgSchema,
    handle: () => scope.getStore() ?? root,
    root,
    writeGeneration: ledger.writeGeneration,
    transactionOutcomes: ledger.outcomes,
    transaction<T>(work: () => Promise<T>): Promise<T> {
      if (scope.getStore()) return work();
      return ledger.track(root.transaction((tx) => scope.run(tx as unknown as Db, work)));
    },
    autocommit<T>(statement: () => Promise<T>): Promise<T> {
      if (scope.getStore()) return Promise.reject(new Error(AUTOCOMMIT_IN_TRANSACTION));
      return ledger.track(statement());
    },
    migrate: async () => applyMigrations({ dialect: "pg", db: root }),
    hasCatalogue: async () => {
      const [row] = await root.execute<{ present: boolean }>(sql`select to_regclass('users') is not null as present`);
      return row?.present === true;
    },
    optimize: async () => {
      await root.execute(sql`analyze books, series, book_pages, read_progress`);
    },
    ping: async () => {
      await root.execute(sql`select 1`);
    },
    checkWritable: async () => {
      const [row] = await root.execute<{ read_only: string }>(sql`select current_setting('transaction_read_only') as read_only`);
      if (row?.read_only === "on") throw Object.assign(new Error("the PostgreSQL server only accepts reads"), { code: "25006" });
    },
    close: async () => {
      await listener?.close();
      await client.end({ timeout: 5 });
    },
    notifications: {
      listen: async (channel, receive) => {
        listener ??= openListener(connect);
        await listener.listen(channel, receive);
      },
      notify: async (channel, payload) => {
        await client.notify(channel, payload);
      },
    },
  };
}

/** Database.writeGeneration and Database.transactionOutcomes, kept as each transaction ends. */
function transactionLedger() {
  let generation = 0;
  let committed = 0;
  let refused = 0;
  return {
    writeGeneration: () => generation,
    outcomes: (): TransactionOutcomes => ({ committed, refused }),
    async track<T>(transaction: Promise<T>): Promise<T> {
      try {
        const result = await transaction;
        committed++;
        return result;
      } catch (error) {
        if (unavailability(error)) refused++;
        throw error;
      } finally {
        generation++;
      }
    },
  };
}
