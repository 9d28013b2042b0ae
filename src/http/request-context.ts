/**
 * Per-request bookkeeping: a request id (taken from a well-formed incoming X-Request-Id, else
 * generated) echoed in the response header and bound to every log line of the request, and one
 * access-log line when the response has been sent.
 *
 * The header is written onto a handler's own Response, not through `set.headers`: with any
 * `set.headers`, Elysia rebuilds a returned Response from its body stream, which turns a page
 * sent straight from the book file by Bun into bytes copied through JavaScript. Plain values
 * still get it through `set.headers` (Elysia builds their Response anyway); error answers get it
 * from the error handler (src/http/errors.ts).
 */
import { Elysia } from "elysia";
import type { Logger } from "../logging/logger";

interface RequestInfo {
  id: string;
  startedAt: number;
}

const requests = new WeakMap<Request, RequestInfo>();
const INCOMING_ID = /^[A-Za-z0-9._-]{8,128}$/;
export const REQUEST_ID_HEADER = "x-request-id";

export function requestIdOf(request: Request): string | undefined {
  return requests.get(request)?.id;
}

/** When the request arrived (performance.now()), for latency measurements. */
export function requestStartedAt(request: Request): number | undefined {
  return requests.get(request)?.startedAt;
}

export function requestContext(log: Logger) {
  return new Elysia({ name: "request-context" })
    .onRequest(({ request }) => {
      const incoming = request.headers.get(REQUEST_ID_HEADER);
      const id = incoming && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
      requests.set(request, { id, startedAt: performance.now() });
    })
    .onAfterHandle({ as: "global" }, ({ request, responseValue, set }) => {
      const id = requests.get(request)?.id;
      if (!id) return;
      if (responseValue instanceof Response) responseValue.headers.set(REQUEST_ID_HEADER, id);
      else set.headers[REQUEST_ID_HEADER] = id;
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
