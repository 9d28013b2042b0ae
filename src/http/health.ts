/**
 * GET /health: open, outside /api/v1; 503 when the database does not answer or cannot be
 * written (a read-only data folder, a full disk): a service that cannot write is not healthy.
 */
import { Elysia, t } from "elysia";
import { unavailability, type Database } from "../db";
import { VERSION } from "../version";

const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("error")]),
  database: t.Union([t.Literal("ok"), t.Literal("unreachable"), t.Literal("unwritable")]),
  version: t.String(),
});

export function healthRoutes(database: Database) {
  return new Elysia({ name: "health-routes" }).get(
    "/health",
    async ({ status }) => {
      try {
        await database.ping();
      } catch {
        return status(503, { status: "error" as const, database: "unreachable" as const, version: VERSION });
      }
      try {
        await database.checkWritable();
        return status(200, { status: "ok" as const, database: "ok" as const, version: VERSION });
      } catch (error) {
        const database = unavailability(error) === "unreachable" ? ("unreachable" as const) : ("unwritable" as const);
        return status(503, { status: "error" as const, database, version: VERSION });
      }
    },
    { response: { 200: Health, 503: Health }, detail: { summary: "Health check (no credentials)", tags: ["operations"] } },
  );
}
