/**
 * The column and table builders of each database, under one set of names.
 *
 * The schema (./define.ts) is written against the PostgreSQL kit's types. The SQLite kit maps
 * each builder to its SQLite equivalent (uuid -> text, timestamp -> integer milliseconds,
 * boolean -> integer 0/1, jsonb -> JSON text, bigint/double -> integer/real) whose values have
 * the same JavaScript types at run time, and is cast to the PostgreSQL kit's type: that single
 * cast is what lets the repositories build every query once for both databases.
 */
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";

/**
 * Text compared byte by byte, as SQLite compares all text: the same order on both databases,
 * and indexes PostgreSQL can use for that order.
 */
const byteOrderedText = pg.customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

export const pgKit = {
  table: pg.pgTable,
  uuid: (name: string) => pg.uuid(name),
  text: pg.text,
  /** Text that sorts by bytes (sort keys). */
  sortKey: (name: string) => byteOrderedText(name),
  integer: (name: string) => pg.integer(name),
  bigint: (name: string, options: { mode: "number" }) => pg.bigint(name, options),
  doublePrecision: (name: string) => pg.doublePrecision(name),
  boolean: (name: string) => pg.boolean(name),
  timestamp: (name: string) => pg.timestamp(name, { withTimezone: true, mode: "date" }),
  jsonb: (name: string) => pg.jsonb(name),
  index: pg.index,
  uniqueIndex: pg.uniqueIndex,
  primaryKey: pg.primaryKey,
};

export type SchemaKit = typeof pgKit;

const sqliteKitReal = {
  table: sqlite.sqliteTable,
  uuid: (name: string) => sqlite.text(name),
  text: sqlite.text,
  sortKey: (name: string) => sqlite.text(name),
  integer: (name: string) => sqlite.integer(name, { mode: "number" }),
  bigint: (name: string, _options: { mode: "number" }) => sqlite.integer(name, { mode: "number" }),
  doublePrecision: (name: string) => sqlite.real(name),
  boolean: (name: string) => sqlite.integer(name, { mode: "boolean" }),
  timestamp: (name: string) => sqlite.integer(name, { mode: "timestamp_ms" }),
  jsonb: (name: string) => sqlite.text(name, { mode: "json" }),
  index: sqlite.index,
  uniqueIndex: sqlite.uniqueIndex,
  primaryKey: sqlite.primaryKey,
};

export const sqliteKit = sqliteKitReal as unknown as SchemaKit;
