/**
 * The HTTP edge of error handling: every failure leaves as the contract's error body
 * `{error, message, details?}` with the matching status; an unexpected error is logged with its
 * request id and answered with a fixed message, never a stack trace.
 */
import { Elysia, type ErrorHandler, type ValidationError } from "elysia";
import { DomainError, RateLimitedError, type DomainErrorKind } from "../errors";
import type { Logger } from "../logging/logger";
import { requestIdOf } from "./request-context";

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

/** An error as status, contract body and extra headers, before it becomes JSON (or, for web pages, HTML). */
interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

function domainErrorAnswer(error: DomainError): ErrorAnswer {
  const body: ErrorBody = { error: error.code ?? error.kind, message: error.message };
  if (error.details) body.details = error.details;
  const headers: Record<string, string> | undefined =
    error instanceof RateLimitedError ? { "retry-after": String(error.retryAfterSeconds) } : undefined;
  return { status: STATUS[error.kind], body, headers };
}

function validationAnswer(error: Readonly<ValidationError>): ErrorAnswer {
  const fields: Record<string, string> = {};
  for (const issue of error.all) {
    const field = "path" in issue && issue.path ? issue.path.replace(/^\//, "").replaceAll("/", ".") : error.type;
    fields[field || error.type] ??= "summary" in issue && issue.summary ? issue.summary : issue.message;
  }
  const where = error.type === "body" ? "request body" : `${error.type} parameters`;
  const summary = Object.entries(fields)
    .map(([field, problem]) => `${field}: ${problem}`)
    .join("; ");
  return { status: 400, body: { error: "BadRequest", message: `invalid ${where}: ${summary}`, details: { fields } } };
}

/** Another rendering of an error for some requests (the web pages' HTML), or null to keep the JSON. */
export type ErrorRenderer = (request: Request, status: number, body: ErrorBody, headers: Record<string, string>) => Response | null;

export function errorHandling(log: Logger, render?: ErrorRenderer) {
  return new Elysia({ name: "error-handling" }).onError({ as: "global" }, (context) => {
    const { status, body, headers = {} } = errorToAnswer(log, context);
    const response = render?.(context.request, status, body, headers) ?? errorResponse(status, body, headers);
    // After-response hooks (access log, metrics) read the status from `set`, not from this Response.
    context.set.status = response.status;
    return response;
  });
}

function errorToAnswer(log: Logger, { code, error, request }: Parameters<ErrorHandler>[0]): ErrorAnswer {
  if (error instanceof DomainError) return domainErrorAnswer(error);
  switch (code) {
    case "VALIDATION":
      return validationAnswer(error);
    case "PARSE":
      return { status: 400, body: { error: "BadRequest", message: "the request body is not valid JSON or form data" } };
    case "NOT_FOUND":
      return { status: 404, body: { error: "NotFound", message: `no route for ${request.method} ${new URL(request.url).pathname}` } };
    case "INVALID_FILE_TYPE":
      return { status: 400, body: { error: "BadRequest", message: error.message } };
  }
  if (typeof code === "number" && code < 500) {
    const kind = KIND_BY_STATUS.get(code) ?? "BadRequest";
    return { status: code, body: { error: kind, message: String((error as { response?: unknown }).response ?? kind) } };
  }
  log.error("unhandled error", { requestId: requestIdOf(request), error: error as Error });
  return { status: 500, body: { error: "InternalServerError", message: "An internal error occurred" } };
}
