/**
 * Domain errors. Services throw these; the HTTP edge (src/http/errors.ts) maps each kind to a
 * status code and the contract's error body. Services never know about HTTP.
 */
export type DomainErrorKind =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "Conflict"
  | "PayloadTooLarge"
  | "UnprocessableEntity"
  | "TooManyRequests"
  | "ServiceUnavailable";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
    /** A more specific error code for the body than the kind (e.g. EmailNotVerified). */
    readonly code?: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** 422 or 400 naming the offending fields, as the contract's `details.fields`. */
export function invalidFields(kind: "BadRequest" | "UnprocessableEntity", fields: Record<string, string>): DomainError {
  const summary = Object.entries(fields)
    .map(([field, problem]) => `${field} ${problem}`)
    .join("; ");
  return new DomainError(kind, summary, { fields });
}

/** 429: too many attempts; `retryAfterSeconds` becomes the Retry-After header at the HTTP edge. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("TooManyRequests", message);
  }
}

export const notFound = (what: string) => new DomainError("NotFound", `${what} not found`);

/**
 * An error and the errors down its `cause` chain, outermost first: drivers' errors arrive
 * wrapped (drizzle's query error around postgres.js's, a retry's failure around the last
 * attempt's). At most 8 deep, so a chain that loops back on itself still ends.
 */
export function* errorChain(error: unknown): Generator<object> {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 8; depth++) {
    yield current;
    current = "cause" in current ? current.cause : undefined;
  }
}
