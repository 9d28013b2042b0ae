/**
 * The HTTP edge of error handling: every failure leaves as the contract's error body
 * `{error, message, details?}` with the matching status; an unexpected error is logged with its
 * request id and answered with a fixed message, never a stack trace.
 */
import { Elysia, type ErrorHandler, InvalidFileType, NotFoundError, ParseError, ValidationError } from "elysia";
import { transactionConflict, unavailability, type TransactionConflict, type Unavailability } from "../db";
import { DomainError, RateLimitedError, type DomainErrorKind } from "../errors";
import type { Logger } from "../logging/logger";
import { ObjectStorageError } from "../storage/s3-bucket";
import { REQUEST_ID_HEADER, requestAnswered, requestIdOf } from "./request-context";
import { withSecurityHeaders, type TransportSettings } from "./security-headers";

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

/** The HTTP status a domain error is answered with. */
export const statusOf = (kind: DomainErrorKind): number => STATUS[kind];

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

const UNAVAILABLE: Record<Unavailability, { status: number; message: string }> = {
  unreachable: { status: 503, message: "the database is unreachable; try again shortly" },
  busy: { status: 503, message: "the database is busy; try again shortly" },
  read_only: { status: 503, message: "the database cannot be written; an administrator must check the data folder" },
  disk_full: { status: 507, message: "the database's disk is full; an administrator must free space" },
};
/** Seconds a client should wait when the database is away. */
const RETRY_AFTER_SECONDS = 5;
/**
 * PostgreSQL rolled the request's transaction back for a concurrent one (two edits, or an edit
 * and a scan worker, locking the same rows in opposite orders): nothing is wrong with the
 * request or the database, and the same request sent again succeeds.
 */
const CONFLICTED: Record<TransactionConflict, string> = {
  deadlock: "the request's database transaction deadlocked with a concurrent one and was rolled back; send it again",
  serialization_failure: "the request's database transaction conflicted with a concurrent one and was rolled back; send it again",
};
/** The concurrent transaction is done (or about to be) once PostgreSQL broke the conflict. */
const CONFLICT_RETRY_AFTER_SECONDS = 1;
/** An outage is logged once per cause and minute, not once per request. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * Thrown where a hook cannot answer by returning (a transform, such as the web pages' sign-in
 * redirect): its response goes out as it is.
 */
export class EarlyAnswer extends Error {
  constructor(readonly response: Response) {
    super("early answer");
  }
}

/** Another rendering of an error for some requests (the web pages' HTML), or null to keep the JSON. */
export type ErrorRenderer = (request: Request, status: number, body: ErrorBody, headers: Record<string, string>) => Response | null;

export function errorHandling(log: Logger, render?: ErrorRenderer, transport?: TransportSettings) {
  const lastLogged = new Map<Unavailability, number>();
  const outage = (cause: Unavailability, error: unknown, request: Request): ErrorAnswer => {
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
    return { status, body: { error: kind, message }, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } };
  };
  // A warning without the stack: there is no fault to debug, but one line each, since many of
  // them say that requests contend for rows. The query's text and parameters stay out of the log.
  const conflicted = (conflict: TransactionConflict, request: Request): ErrorAnswer => {
    log.warn(`database transaction conflict (${conflict}): rolled back by PostgreSQL; the request answers 503, to be sent again`, {
      requestId: requestIdOf(request),
    });
    return {
      status: 503,
      body: { error: "ServiceUnavailable", message: CONFLICTED[conflict] },
      headers: { "retry-after": String(CONFLICT_RETRY_AFTER_SECONDS) },
    };
  };
  /** A database that cannot answer now, or a transaction it rolled back: the client tries again. */
  const databaseFailure = (error: unknown, request: Request): ErrorAnswer | undefined => {
    if (error instanceof DomainError) return undefined;
    const cause = unavailability(error);
    if (cause) return outage(cause, error, request);
    const conflict = transactionConflict(error);
    return conflict ? conflicted(conflict, request) : undefined;
  };
  // The context is destructured, never passed whole: Elysia infers from a hook's parameters
  // what every request must prepare, and a whole `context` makes it parse the cookies of every
  // request and rebuild every returned Response (pages would no longer be sent from the file by Bun).
  return new Elysia({ name: "error-handling" }).onError({ as: "global" }, ({ code, error, request, route }) => {
    let response: Response;
    if (error instanceof EarlyAnswer) response = error.response;
    else {
      const { status, body, headers = {} } = databaseFailure(error, request) ?? errorToAnswer(log, code, error, request);
      response = render?.(request, status, body, headers) ?? errorResponse(status, body, headers);
    }
    const requestId = requestIdOf(request);
    if (requestId) response.headers.set(REQUEST_ID_HEADER, requestId);
    withSecurityHeaders(response, request, transport);
    requestAnswered(request, route, response.status);
    return response;
  });
}

function errorToAnswer(log: Logger, code: Parameters<ErrorHandler>[0]["code"], error: unknown, request: Request): ErrorAnswer {
  if (error instanceof DomainError) return domainErrorAnswer(error);
  if (error instanceof ValidationError && error.type === "response") {
    // The route answered something its own schema (the OpenAPI document's) does not allow: a
    // fault of ours, not of the request, logged with where and why it did not match, never the
    // value (Elysia's message quotes the whole answer, which may hold a token or a key).
    const mismatches = error.all.slice(0, 5).map(({ path, message }) => ({ path, problem: message }));
    log.error("an answer does not match its route's response schema", { requestId: requestIdOf(request), route: new URL(request.url).pathname, mismatches });
    return { status: 500, body: { error: "InternalServerError", message: "An internal error occurred" } };
  }
  if (error instanceof ValidationError) return validationAnswer(error);
  if (error instanceof ParseError) {
    // Elysia wraps whatever a parse hook throws (src/http/request-body.ts: 413, too deep) in a ParseError.
    if (error.cause instanceof DomainError) return domainErrorAnswer(error.cause);
    return { status: 400, body: { error: "BadRequest", message: "the request body is not valid JSON or form data" } };
  }
  if (error instanceof NotFoundError) {
    return { status: 404, body: { error: "NotFound", message: `no route for ${request.method} ${new URL(request.url).pathname}` } };
  }
  if (error instanceof InvalidFileType) return { status: 400, body: { error: "BadRequest", message: error.message } };
  if (typeof code === "number" && code < 500) {
    const kind = KIND_BY_STATUS.get(code) ?? "BadRequest";
    return { status: code, body: { error: kind, message: String((error as { response?: unknown }).response ?? kind) } };
  }
  if (error instanceof ObjectStorageError) {
    // Its message names the object and the storage's answer, never a credential.
    log.error("object storage unavailable", { requestId: requestIdOf(request), error });
    return {
      status: 503,
      body: { error: "ServiceUnavailable", message: "the object storage does not answer; try again shortly" },
      headers: { "retry-after": String(RETRY_AFTER_SECONDS) },
    };
  }
  log.error("unhandled error", { requestId: requestIdOf(request), error: error as Error });
  return { status: 500, body: { error: "InternalServerError", message: "An internal error occurred" } };
}
