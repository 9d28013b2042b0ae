/**
 * Whether an error means "the database cannot answer right now" rather than "this query is
 * wrong": a PostgreSQL server that is down or restarting, a connection cut, a SQLite file on a
 * full disk or locked past its busy timeout. Such failures are transient: callers answer 503
 * (or 507 for a full disk) and retry later; they are never a fault of a book or a request.
 * drizzle wraps driver errors, so the whole `cause` chain is examined.
 */
import { errorChain } from "../errors";

export type Unavailability = "unreachable" | "disk_full" | "read_only" | "busy";

const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

export function unavailability(error: unknown): Unavailability | undefined {
  for (const code of codesOf(error)) {
    if (CONNECTION_CODES.has(code)) return "unreachable";
    // PostgreSQL SQLSTATE: 08 connection exceptions, 57P0x shutdown / cannot connect now,
    // 53100 disk full, 53300 too many connections, 25006 read-only transaction (a standby).
    if (code.startsWith("08") || /^57P0[1-3]$/.test(code)) return "unreachable";
    if (code === "53100" || code.startsWith("SQLITE_FULL")) return "disk_full";
    if (code === "53300" || code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
    if (code === "25006" || code.startsWith("SQLITE_READONLY")) return "read_only";
    if (code === "SQLITE_IOERR_WRITE" || code === "SQLITE_IOERR_FSYNC") return "disk_full";
  }
  return undefined;
}

/**
 * PostgreSQL rolled a transaction back because it conflicted with a concurrent one: a deadlock
 * it broke (SQLSTATE 40P01) or a serialization failure (40001). The database is up and the
 * statements are right: the same work run again succeeds. Not an unavailability: a request
 * answers 503 for it but no outage is logged, and the health check does not count it as a
 * refused write. (SQLite runs one writer at a time: its waits past the busy timeout are "busy"
 * above.)
 */
export type TransactionConflict = "deadlock" | "serialization_failure";

export function transactionConflict(error: unknown): TransactionConflict | undefined {
  for (const code of codesOf(error)) {
    if (code === "40P01") return "deadlock";
    if (code === "40001") return "serialization_failure";
  }
  return undefined;
}

/** The `code` of an error and of the errors down its `cause` chain. */
function* codesOf(error: unknown): Generator<string> {
  for (const current of errorChain(error)) yield "code" in current ? String(current.code) : "";
}
