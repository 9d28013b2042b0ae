/**
 * Applies the embedded migrations (see ./migrations-macro.ts) with drizzle's own migrator, into
 * the same `__drizzle_migrations` table drizzle-kit uses. The migrator entry point is internal
 * to drizzle (`dialect.migrate`), which is why package.json pins drizzle-orm exactly.
 */
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { embeddedMigrations } from "./migrations-macro" with { type: "macro" };

const sqliteMigrations = embeddedMigrations("sqlite");
const pgMigrations = embeddedMigrations("pg");

/** drizzle's databases carry their dialect and session; neither is in the public typings. */
interface MigratableDatabase {
  dialect: { migrate(migrations: unknown, session: unknown, config: unknown): unknown };
  session: unknown;
}

export type MigrationTarget =
  | { dialect: "sqlite"; db: BunSQLiteDatabase }
  | { dialect: "pg"; db: PostgresJsDatabase };

export async function applyMigrations(target: MigrationTarget): Promise<void> {
  const internals = target.db as unknown as MigratableDatabase;
  const migrations = target.dialect === "sqlite" ? sqliteMigrations : pgMigrations;
  await internals.dialect.migrate(migrations, internals.session, { migrationsTable: "__drizzle_migrations" });
}

/**
 * The schema version this program knows: the number of its migrations for the dialect. A
 * database with more applied (`__drizzle_migrations` rows) was made by a newer Longbox.
 */
export function knownSchemaVersion(dialect: "sqlite" | "pg"): number {
  return (dialect === "sqlite" ? sqliteMigrations : pgMigrations).length;
}
