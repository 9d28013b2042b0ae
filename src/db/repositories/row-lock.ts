import type { Database } from "../database";

/**
 * Locks the rows a read-then-write reads (SELECT ... FOR NO KEY UPDATE) on PostgreSQL, where a
 * concurrent edit could otherwise commit between the read and the write and be overwritten
 * (an admin's edit against a scan). SQLite needs nothing: its writers are serialised.
 *
 * NO KEY UPDATE, not UPDATE: the writes that follow never change a row's key, and FOR UPDATE
 * also waits for every transaction holding the KEY SHARE lock that inserting a row which
 * references it takes (each book a scan worker inserts into a series), which then queue their
 * own updates of the row (the series' book count) behind it: scan workers writing books of one
 * series deadlocked (tests/library/book-counts.test.ts, under load).
 */
export function lockingRead<Q extends { for(strength: "no key update"): unknown }>(database: Database, query: Q): Q {
  return database.dialect === "postgres" ? (query.for("no key update") as Q) : query;
}

/**
 * Claims a row for a queue consumer: SELECT ... FOR UPDATE SKIP LOCKED on PostgreSQL, so
 * consumers claiming at once each get a different row instead of waiting for each other.
 * SQLite needs nothing: a write transaction holds the whole database.
 */
export function claimingRead<Q extends { for(strength: "update", config: { skipLocked: true }): unknown }>(database: Database, query: Q): Q {
  return database.dialect === "postgres" ? (query.for("update", { skipLocked: true }) as Q) : query;
}
