/**
 * Direct SQL against a test server's database, for what no HTTP call can produce or show: a
 * row whose expiry has passed, what exactly is stored. Write PostgreSQL-style `$1` placeholders;
 * Dates are passed as the dialect stores them (timestamptz, or epoch milliseconds on SQLite).
 */
import { Database as SqliteClient } from "bun:sqlite";
import postgres from "postgres";
import type { TestServer } from "./server";

export type Row = Record<string, unknown>;

export async function rawQuery(server: TestServer, text: string, ...params: unknown[]): Promise<Row[]> {
  return queryDatabase(databaseOf(server), text, ...params);
}

/** Where a test server's database is, for queryDatabase and tableContents. */
export function databaseOf(server: TestServer): { postgresUrl: string } | { sqliteFile: string } {
  const { config, paths } = server.server.services;
  return config.database.type === "postgres" ? { postgresUrl: config.database.postgres.url } : { sqliteFile: paths.sqliteFile };
}

/** The same, for a database no running test server owns (e.g. one a child process uses). */
export async function queryDatabase(
  target: { postgresUrl: string } | { sqliteFile: string },
  text: string,
  ...params: unknown[]
): Promise<Row[]> {
  if ("postgresUrl" in target) {
    const client = postgres(target.postgresUrl, { max: 1, onnotice: () => undefined });
    try {
      return [...(await client.unsafe(text, params as never[]))];
    } finally {
      await client.end();
    }
  }
  const client = new SqliteClient(target.sqliteFile);
  try {
    client.exec("PRAGMA busy_timeout = 5000");
    const values = params.map((value) => (value instanceof Date ? value.getTime() : value)) as never[];
    return client.query(text.replace(/\$(\d+)/g, "?$1")).all(...values) as Row[];
  } finally {
    client.close();
  }
}

export async function countRows(server: TestServer, table: string): Promise<number> {
  const [row] = await rawQuery(server, `SELECT COUNT(*) AS n FROM ${table}`);
  return Number(row?.n);
}

/**
 * Every table of the database (SQLite: every table in sqlite_master, the text-search index's
 * own included; PostgreSQL: every table outside the system schemas) with its rows, each as
 * JSON, sorted: two databases holding the same data give equal results.
 */
export async function tableContents(target: { postgresUrl: string } | { sqliteFile: string }): Promise<Record<string, string[]>> {
  const tables =
    "postgresUrl" in target
      ? (await queryDatabase(target, "SELECT schemaname || '.' || tablename AS name FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")).map((row) => String(row.name))
      : (await queryDatabase(target, "SELECT name FROM sqlite_master WHERE type = 'table'")).map((row) => String(row.name));
  const contents: Record<string, string[]> = {};
  for (const table of tables.sort()) {
    const quoted = table.split(".").map((part) => `"${part}"`).join(".");
    contents[table] = (await queryDatabase(target, `SELECT * FROM ${quoted}`)).map((row) => JSON.stringify(row)).sort();
  }
  return contents;
}
