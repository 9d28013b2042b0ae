/** GET /health: open, outside /api/v1; 503 when the database does not answer. */
import { Elysia } from "elysia";
import type { Database } from "../db";
import { VERSION } from "../version";

export function healthRoutes(database: Database) {
  return new Elysia({ name: "health-routes" }).get(
    "/health",
    async ({ set }) => {
      try {
        await database.ping();
        return { status: "ok", database: "ok", version: VERSION };
      } catch {
        set.status = 503;
        return { status: "error", database: "unreachable", version: VERSION };
      }
    },
    { detail: { summary: "Health check", tags: ["operations"] } },
  );
}
