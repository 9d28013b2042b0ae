/**
 * The HTTP edge of error handling: every failure leaves as the contract's error body
 * `{error, message, details?}` with the matching status; an unexpected error is logged with its
 * request id and answered with a fixed message, never a stack trace.
 */
import { Elysia, type ErrorHandler, type ValidationError } from "elysia";
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

export function errorHandling(log: Logger) {
  return new Elysia({ name: "error-handling" }).onError({ as: "global" }, (context) => {
    const response = errorToResponse(log, context);
    const requestId = requestIdOf(context.request);
    if (requestId) response.headers.set(REQUEST_ID_HEADER, requestId);
    // After-response hooks (access log, metrics) read the status from `set`, not from this Response.
    context.set.status = response.status;
    return response;
  });
}

function errorToResponse(log: Logger, { code, error, request }: Parameters<ErrorHandler>[0]): Response {
  if (error instanceof DomainError) return domainErrorResponse(error);
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
