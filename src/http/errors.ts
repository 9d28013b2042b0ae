/**
 * The HTTP edge of error handling: every failure leaves as the contract's error body
 * `{error, message, details?}` with the matching status; an unexpected error is logged with its
 * request id and answered with a fixed message, never a stack trace.
 */
import { Elysia, type ErrorHandler, type ValidationError } from "elysia";
import { unavailability, type Unavailability } from "../db";
import { DomainError, RateLimitedError, type DomainErrorKind } from "../errors";
import type { Logger } from "../logging/logger";
import { REQUEST_ID_HEADER, requestIdOf } from "./request-context";

const STATUS: Record<DomainErrorKind | "InternalServerError", number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnprocessableEntity: 422,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
};

const KIND_BY_STATUS = new Map(Object.entries(STATUS).map(([kind, status]) => [status, kind]));

export interface ErrorBody {
  error: string;
  message: string;
  details?: Record<string, unknown>;
}

export function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function domainErrorResponse(error: DomainError, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { error: error.code ?? error.kind, message: error.message };
  if (error.details) body.details = error.details;
  const retryAfter: Record<string, string> =
    error instanceof RateLimitedError ? { "retry-after": String(error.retryAfterSeconds) } : {};
  return errorResponse(STATUS[error.kind], body, { ...retryAfter, ...headers });
}

function validationResponse(error: Readonly<ValidationError>): Response {
  const fields: Record<string, string> = {};
  for (const issue of error.all) {
    const field = "path" in issue && issue.path ? issue.path.replace(/^\//, "").replaceAll("/", ".") : error.type;
    fields[field || error.type] ??= "summary" in issue && issue.summary ? issue.summary : issue.message;
  }
  const where = error.type === "body" ? "request body" : `${error.type} parameters`;
  const summary = Object.entries(fields)
    .map(([field, problem]) => `${field}: ${problem}`)
    .join("; ");
  return errorResponse(400, { error: "BadRequest", message: `invalid ${where}: ${summary}`, details: { fields } });
}

const UNAVAILABLE: Record<Unavailability, { status: number; message: string }> = {
  unreachable: { status: 503, message: "the database is unreachable; try again shortly" },
  busy: { status: 503, message: "the database is busy; try again shortly" },
  read_only: { status: 503, message: "the database cannot be written; an administrator must check the data folder" },
  disk_full: { status: 507, message: "the database's disk is full; an administrator must free space" },
};
/** Seconds a client should wait when the database is away. */
const RETRY_AFTER_SECONDS = 5;
/** An outage is logged once per cause and minute, not once per request. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

export function errorHandling(log: Logger) {
  const lastLogged = new Map<Unavailability, number>();
  const outage = (cause: Unavailability, error: unknown, request: Request): Response => {
    const now = Date.now();
    if (now - (lastLogged.get(cause) ?? 0) > OUTAGE_LOG_INTERVAL_MS) {
      lastLogged.set(cause, now);
      log.error(`database unavailable (${cause}): requests answer ${UNAVAILABLE[cause].status} until it returns`, {
        requestId: requestIdOf(request),
        error: error as Error,
      });
    }
    const { status, message } = UNAVAILABLE[cause];
    const kind = status === 507 ? "InsufficientStorage" : "ServiceUnavailable";
    return errorResponse(status, { error: kind, message }, { "retry-after": String(RETRY_AFTER_SECONDS) });
  };
  return new Elysia({ name: "error-handling" }).onError({ as: "global" }, (context) => {
    const cause = context.error instanceof DomainError ? undefined : unavailability(context.error);
    const response = cause ? outage(cause, context.error, context.request) : errorToResponse(log, context);
    const requestId = requestIdOf(context.request);
    if (requestId) response.headers.set(REQUEST_ID_HEADER, requestId);
    // After-response hooks (access log, metrics) read the status from `set`, not from this Response.
    context.set.status = response.status;
    return response;
  });
}

function errorToResponse(log: Logger, { code, error, request }: Parameters<ErrorHandler>[0]): Response {
  if (error instanceof DomainError) return domainErrorResponse(error);
  // Elysia wraps whatever a parse hook throws (src/http/request-body.ts: 413, too deep) in a ParseError.
  if (code === "PARSE" && error.cause instanceof DomainError) return domainErrorResponse(error.cause);
  switch (code) {
    case "VALIDATION":
      return validationResponse(error);
    case "PARSE":
      return errorResponse(400, { error: "BadRequest", message: "the request body is not valid JSON or form data" });
    case "NOT_FOUND":
      return errorResponse(404, {
        error: "NotFound",
        message: `no route for ${request.method} ${new URL(request.url).pathname}`,
      });
    case "INVALID_FILE_TYPE":
      return errorResponse(400, { error: "BadRequest", message: error.message });
  }
  if (typeof code === "number" && code < 500) {
    const kind = KIND_BY_STATUS.get(code) ?? "BadRequest";
    return errorResponse(code, { error: kind, message: String((error as { response?: unknown }).response ?? kind) });
  }
  log.error("unhandled error", { requestId: requestIdOf(request), error: error as Error });
  return errorResponse(500, { error: "InternalServerError", message: "An internal error occurred" });
}
