/**
 * Per-request bookkeeping: a request id (taken from a well-formed incoming X-Request-Id, else
 * generated) echoed in the response header and bound to every log line of the request, and,
 * once the answer is decided, one call of each observer (the access log, the HTTP metrics).
 *
 * The header is written onto a handler's own Response, not through `set.headers`: with any
 * `set.headers`, Elysia rebuilds a returned Response from its body stream, which turns a page
 * sent straight from the book file by Bun into bytes copied through JavaScript. Plain values
 * still get it through `set.headers` (Elysia builds their Response anyway); error answers get it
 * from the error handler (src/http/errors.ts).
 *
 * Observers run where the answer is decided, synchronously: after the handler (an after-handle
 * hook) or in the error handler (`requestAnswered`). Not in an after-response hook: Elysia runs
 * those from a `setImmediate` scheduled for every request, one more task per request for
 * nothing they need. The latency observed is the time until the handler's value or the error
 * answer; serialising a JSON value and sending the body (a page streamed from its file) come after.
 * Observers are told once: a value that then fails its route's response schema (only /health
 * declares one) is recorded with the handler's status, not the error's.
 */
import { Elysia, ElysiaCustomStatusResponse, StatusMap } from "elysia";
import type { Logger } from "../logging/logger";

/** A request whose answer is decided. */
interface AnsweredRequest {
  request: Request;
  /** The route template Elysia matched (`/api/v1/books/:id`); undefined when none did. */
  route: string | undefined;
  status: number;
  /** From the request's arrival to its answer. */
  seconds: number;
  requestId: string;
}

export type RequestObserver = (answered: AnsweredRequest) => void;

interface RequestInfo {
  id: string;
  startedAt: number;
  observers: readonly RequestObserver[];
  /** Observers are told once, whichever path decided the answer first. */
  answered: boolean;
}

const requests = new WeakMap<Request, RequestInfo>();
const INCOMING_ID = /^[A-Za-z0-9._-]{8,128}$/;
export const REQUEST_ID_HEADER = "x-request-id";

export function requestIdOf(request: Request): string | undefined {
  return requests.get(request)?.id;
}

/**
 * Tells the observers of the request (once) that its answer is `status`: called by the
 * after-handle hook below and by the error handler, the two places an answer is decided.
 */
export function requestAnswered(request: Request, route: string | undefined, status: number): void {
  const info = requests.get(request);
  if (!info || info.answered) return;
  info.answered = true;
  const answered = { request, route, status, seconds: (performance.now() - info.startedAt) / 1000, requestId: info.id };
  for (const observe of info.observers) observe(answered);
}

/**
 * The status a handler's value leaves with: its own Response (files, redirects), a `status()`
 * value, else `set.status` (200 when unset).
 */
function handlerStatus(value: unknown, status: number | keyof typeof StatusMap | undefined): number {
  if (value instanceof Response) return value.status;
  if (value instanceof ElysiaCustomStatusResponse) return value.code;
  if (typeof status === "number") return status;
  return status ? StatusMap[status] : 200;
}

export function requestContext(observers: readonly RequestObserver[]) {
  return new Elysia({ name: "request-context" })
    .onRequest(({ request }) => {
      const incoming = request.headers.get(REQUEST_ID_HEADER);
      const id = incoming && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
      requests.set(request, { id, startedAt: performance.now(), observers, answered: false });
    })
    .onAfterHandle({ as: "global" }, ({ request, route, responseValue, set }) => {
      const id = requests.get(request)?.id;
      if (!id) return;
      if (responseValue instanceof Response) responseValue.headers.set(REQUEST_ID_HEADER, id);
      else set.headers[REQUEST_ID_HEADER] = id;
      requestAnswered(request, route, handlerStatus(responseValue, set.status));
    });
}

/** One debug line per request (method, path, status, time to answer), when debug is on. */
export function accessLog(log: Logger): RequestObserver {
  return ({ request, status, seconds, requestId }) => {
    if (!log.isEnabled("debug")) return;
    log.debug("request", {
      requestId,
      method: request.method,
      path: new URL(request.url).pathname,
      status,
      ms: Math.round(seconds * 10_000) / 10,
    });
  };
}
