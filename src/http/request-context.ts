/**
 * Per-request bookkeeping: a request id (taken from a well-formed incoming X-Request-Id, else
 * generated) echoed in the response header and bound to every log line of the request, and one
 * access-log line when the response has been sent.
 */
import { Elysia } from "elysia";
import type { Logger } from "../logging/logger";

interface RequestInfo {
  id: string;
  startedAt: number;
}

const requests = new WeakMap<Request, RequestInfo>();
const INCOMING_ID = /^[A-Za-z0-9._-]{8,128}$/;

export function requestIdOf(request: Request): string | undefined {
  return requests.get(request)?.id;
}

/** When the request arrived (performance.now()), for latency measurements. */
export function requestStartedAt(request: Request): number | undefined {
  return requests.get(request)?.startedAt;
}

export function requestContext(log: Logger) {
  return new Elysia({ name: "request-context" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
      requests.set(request, { id, startedAt: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      const info = requests.get(request);
      if (!info || !log.isEnabled("debug")) return;
      log.debug("request", {
        requestId: info.id,
        method: request.method,
        path: new URL(request.url).pathname,
        status: set.status,
        ms: Math.round((performance.now() - info.startedAt) * 10) / 10,
      });
    });
}
