/**
 * Text ordering that is the same on both databases and fast: byte order. SQLite compares text
 * bytewise by default; PostgreSQL would use the database's locale collation, which orders
 * differently and costs a locale-aware comparison per pair (most of a 10,000-row sort).
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../database";

export function bytewise(database: Database, expression: SQLWrapper): SQL {
  return database.dialect === "postgres" ? sql`${expression} collate "C"` : sql`${expression}`;
}
