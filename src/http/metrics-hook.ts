/**
 * Counts every answered request and its latency for the metrics (src/operations/metrics.ts),
 * labelled by the route TEMPLATE Elysia matched (`/api/v1/books/:id`), never the raw path, so
 * label values stay few whatever clients send: unknown paths are "unmatched", unusual methods
 * "OTHER".
 */
import { Elysia, StatusMap } from "elysia";
import type { Metrics } from "../operations/metrics";
import { requestStartedAt } from "./request-context";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The status that left: a handler may return its own Response (files, redirects), else
 * `set.status`, which the error handler keeps in step with the error responses it makes.
 */
function sentStatus(response: unknown, status: number | keyof typeof StatusMap | undefined): number {
  if (response instanceof Response) return response.status;
  if (typeof status === "number") return status;
  return status ? StatusMap[status] : 200;
}

export function httpMetrics(metrics: Pick<Metrics, "recordHttpRequest">) {
  // The request context (mounted first, see app.ts) records when each request arrived.
  return new Elysia({ name: "http-metrics" }).onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
    const started = requestStartedAt(request);
    if (started === undefined) return;
    metrics.recordHttpRequest({
      method: METHODS.has(request.method) ? request.method : "OTHER",
      route: route || "unmatched",
      status: sentStatus(responseValue, set.status),
      seconds: (performance.now() - started) / 1000,
    });
  });
}
