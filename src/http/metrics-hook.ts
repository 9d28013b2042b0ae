/**
 * Counts every answered request and its latency for the metrics (src/operations/metrics.ts),
 * labelled by the route TEMPLATE Elysia matched (`/api/v1/books/:id`), never the raw path, so
 * label values stay few whatever clients send: unknown paths are "unmatched", unusual methods
 * "OTHER". An observer of the request context (./request-context.ts).
 */
import type { Metrics } from "../operations/metrics";
import type { RequestObserver } from "./request-context";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function httpMetrics(metrics: Pick<Metrics, "recordHttpRequest">): RequestObserver {
  return ({ request, route, status, seconds }) =>
    metrics.recordHttpRequest({
      method: METHODS.has(request.method) ? request.method : "OTHER",
      route: route || "unmatched",
      status,
      seconds,
    });
}
