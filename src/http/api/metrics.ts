/**
 * GET /api/v1/metrics: JSON by default; the Prometheus text exposition for `?format=prometheus`
 * or a client that accepts text/plain (or OpenMetrics, which Prometheus asks for first and
 * which falls back to this format) without asking for JSON explicitly.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";

function wantsPrometheus(format: "json" | "prometheus" | undefined, accept: string | null): boolean {
  if (format) return format === "prometheus";
  const accepted = (accept ?? "").toLowerCase();
  return !accepted.includes("application/json") && (accepted.includes("text/plain") || accepted.includes("application/openmetrics-text"));
}

export function metricsRoutes(services: Services) {
  const metrics = services.metrics;
  return new Elysia({ name: "metrics-routes" }).use(authPlugin(services)).get(
    "/api/v1/metrics",
    async ({ caller, query, request }) => {
      if (!wantsPrometheus(query.format, request.headers.get("accept"))) return metrics.snapshot(caller.user);
      return new Response(await metrics.prometheus(caller.user), { headers: { "content-type": metrics.contentType } });
    },
    {
      auth: "user",
      query: t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("prometheus")])) }),
      detail: { summary: "Service metrics (JSON, or Prometheus text with ?format=prometheus or Accept: text/plain)", tags: ["operations"] },
    },
  );
}
