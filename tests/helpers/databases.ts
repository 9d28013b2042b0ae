/**
 * Test databases: every test that touches the database runs against SQLite and PostgreSQL.
 * Each call makes its own database (a temp SQLite file, or a fresh PostgreSQL database on the
 * local server), so test files are independent and may run in parallel.
 * LONGBOX_TEST_DATABASES=sqlite (or postgres) narrows the run on a developer machine; CI runs both.
 */
import postgres from "postgres";

export type DatabaseKind = "sqlite" | "postgres";

export const DATABASE_KINDS: DatabaseKind[] = (process.env.LONGBOX_TEST_DATABASES ?? "sqlite,postgres")
  .split(",")
  .map((kind) => kind.trim())
  .filter((kind): kind is DatabaseKind => kind === "sqlite" || kind === "postgres");

export const POSTGRES_ADMIN_URL = process.env.LONGBOX_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  kind: DatabaseKind;
  /** The `database` section of a configuration file for this database. */
  config: Record<string, unknown>;
  /** Where tests/helpers/sql.ts can reach this database directly. */
  target: { postgresUrl: string } | { sqliteFile: string };
  drop(): Promise<void>;
}

export async function createTestDatabase(kind: DatabaseKind, dataDir: string): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const sqliteFile = `${dataDir}/longbox.db`;
    return { kind, config: { type: "sqlite", sqlite: { path: sqliteFile } }, target: { sqliteFile }, drop: async () => undefined };
  }
  const name = `longbox_test_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(error as Error).message}). ` +
        "Start it (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) or set LONGBOX_TEST_DATABASES=sqlite.",
    );
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    config: { type: "postgres", postgres: { url: url.toString() } },
    target: { postgresUrl: url.toString() },
    drop: async () => {
      const cleanup = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => undefined });
      try {
        await cleanup.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
