/**
 * Build-time macro: reads the drizzle-kit migration folders while Bun bundles (or transpiles)
 * the code, so the SQL is inlined into the program and the single executable needs no
 * migration files on disk. Imported `with { type: "macro" }` from ./migrate.ts.
 */
import { join } from "node:path";
import { readMigrationFiles, type MigrationMeta } from "drizzle-orm/migrator";

export function embeddedMigrations(dialect: "sqlite" | "pg"): MigrationMeta[] {
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, "migrations", dialect) });
}
