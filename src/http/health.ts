/**
 * GET /health: open, outside /api/v1; 503 when the database does not answer or cannot be
 * written (a read-only data folder, a full disk): a service that cannot write is not healthy.
 * Being open, it must not cost a write per call: every call asks the database to answer (a
 * read), but the write check's answer is reused (writabilityCheck).
 */
import { Elysia, t } from "elysia";
import { unavailability, type Database, type TransactionOutcomes } from "../db";
import { VERSION } from "../version";

/** How long a write check's answer stands while this process's own transactions do not contradict it. */
const WRITE_CHECK_MAX_AGE_MS = 10_000;

const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("error")]),
  database: t.Union([t.Literal("ok"), t.Literal("unreachable"), t.Literal("unwritable")]),
  version: t.String(),
});

type DatabaseHealth = "ok" | "unreachable" | "unwritable";

export function healthRoutes(database: Database) {
  const writability = writabilityCheck(database);
  return new Elysia({ name: "health-routes" }).get(
    "/health",
    async ({ status }) => {
      let health: DatabaseHealth;
      try {
        await database.ping();
        health = await writability();
      } catch {
        health = "unreachable";
      }
      return health === "ok"
        ? status(200, { status: "ok" as const, database: health, version: VERSION })
        : status(503, { status: "error" as const, database: health, version: VERSION });
    },
    { response: { 200: Health, 503: Health }, detail: { summary: "Health check (no credentials)", tags: ["operations"] } },
  );
}

/**
 * Whether the database takes writes, checked by a real write at most every
 * WRITE_CHECK_MAX_AGE_MS, and sooner when this process's own transactions have said otherwise
 * since: one the database refused ends an "ok", one that committed ends an "unwritable". So a
 * full disk or a read-only database shows at once when this process meets it, and within the
 * interval when nothing here writes; a flood of calls shares one check.
 */
function writabilityCheck(database: Database): () => Promise<DatabaseHealth> {
  let known: { health: DatabaseHealth; checkedAt: number; outcomes: TransactionOutcomes } | undefined;
  let checking: Promise<DatabaseHealth> | undefined;
  const stillTrue = () => {
    if (!known || Date.now() - known.checkedAt >= WRITE_CHECK_MAX_AGE_MS) return false;
    const now = database.transactionOutcomes();
    return known.health === "ok" ? now.refused === known.outcomes.refused : now.committed === known.outcomes.committed;
  };
  const check = async (): Promise<DatabaseHealth> => {
    const outcomes = database.transactionOutcomes();
    const checkedAt = Date.now();
    let health: DatabaseHealth = "ok";
    try {
      await database.checkWritable();
    } catch (error) {
      health = unavailability(error) === "unreachable" ? "unreachable" : "unwritable";
    }
    // An unreachable database is told by the read every call makes: not remembered here.
    known = health === "unreachable" ? undefined : { health, checkedAt, outcomes };
    return health;
  };
  return () => {
    if (stillTrue()) return Promise.resolve(known!.health);
    checking ??= check().finally(() => (checking = undefined));
    return checking;
  };
}
