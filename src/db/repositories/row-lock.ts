import type { Database } from "../database";

/**
 * Locks the rows a read-then-write reads (SELECT ... FOR UPDATE) on PostgreSQL, where a
 * concurrent edit could otherwise commit between the read and the write and be overwritten
 * (an admin's edit against a scan). SQLite needs nothing: its writers are serialised.
 */
export function lockingRead<Q extends { for(strength: "update"): unknown }>(database: Database, query: Q): Q {
  return database.dialect === "postgres" ? (query.for("update") as Q) : query;
}
