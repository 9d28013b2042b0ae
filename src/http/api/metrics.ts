/**
 * GET /api/v1/metrics: JSON by default; the Prometheus text exposition for `?format=prometheus`
 * or a client that accepts text/plain (or OpenMetrics, which Prometheus asks for first and
 * which falls back to this format) without asking for JSON explicitly.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { acceptNames } from "../accept";
import { authPlugin } from "../auth-plugin";
import { documentedAnswers, mediaAnswer, Shape, Integer } from "./schemas";

const Count = Integer({ minimum: 0 });
const HttpLabels = { method: t.String(), route: t.String(), status: Integer() };
/** The JSON metrics (src/operations/metrics.ts: MetricsSnapshot). */
const MetricsSnapshotSchema = Shape(
  {
    inventory: Shape({
      libraries: Count,
      series: Count,
      books: Count,
      deletedBooks: Count,
      booksWithThumbnail: Count,
      totalFileBytes: Count,
      byFormat: t.Record(t.String(), Shape({ books: Count, bytes: Count })),
    }),
    scans: t.Optional(
      Shape(
        {
          running: Count,
          pending: Count,
          completed: Count,
          failed: Count,
          cancelled: Count,
          lastCompletedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
          thumbnailsPending: Count,
          thumbnailsMade: Count,
          thumbnailsFailed: Count,
        },
        { description: "Admins only" },
      ),
    ),
    http: Shape({
      requests: t.Array(Shape({ ...HttpLabels, count: Count })),
      latency: Shape({
        bucketsSeconds: t.Array(t.Number()),
        routes: t.Array(Shape({ ...HttpLabels, count: Count, sumSeconds: t.Number(), bucketCounts: t.Array(Count) })),
      }),
    }),
    process: Shape({ rssBytes: Count, heapUsedBytes: Count, uptimeSeconds: t.Number(), version: t.String() }),
  },
  { $id: "MetricsSnapshot" },
);

function wantsPrometheus(format: "json" | "prometheus" | undefined, request: Request): boolean {
  if (format) return format === "prometheus";
  return !acceptNames(request, "application/json") && (acceptNames(request, "text/plain") || acceptNames(request, "application/openmetrics-text"));
}

export function metricsRoutes(services: Services) {
  const metrics = services.metrics;
  return new Elysia({ name: "metrics-routes" }).use(authPlugin(services)).get(
    "/api/v1/metrics",
    async ({ caller, query, request }) => {
      if (!wantsPrometheus(query.format, request)) return metrics.snapshot(caller.user);
      return new Response(await metrics.prometheus(caller.user), { headers: { "content-type": metrics.contentType } });
    },
    {
      auth: "user",
      query: t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("prometheus")])) }),
      detail: {
        summary: "Service metrics (JSON, or Prometheus text with ?format=prometheus or Accept: text/plain)",
        tags: ["operations"],
        // Two media types: the Response of the Prometheus text is outside Elysia's JSON check.
        responses: documentedAnswers({
          200: mediaAnswer("The metrics", { "application/json": MetricsSnapshotSchema, "text/plain": { type: "string" } }),
        }),
      },
    },
  );
}
