/** Request schemas shared by the HTTP slices. */
import { t } from "elysia";
import { DomainError } from "../errors";
import { READING_DIRECTIONS, SERIES_STRATEGIES } from "../library/libraries";

export const Uuid = t.String({ format: "uuid" });

/** `{id}` path parameters: a malformed id is a 400, an unknown one a 404 from the service. */
export const IdParams = t.Object({ id: Uuid });

export const ReadingDirectionSchema = t.Union(READING_DIRECTIONS.map((direction) => t.Literal(direction)));

export const SeriesStrategySchema = t.Union(SERIES_STRATEGIES.map((strategy) => t.Literal(strategy)));

export interface IntegerRange {
  minimum: number;
  maximum: number;
}

/** At most 10 digits: anything longer is out of every range below and never reaches Number(). */
const DECIMAL_DIGITS = "^[0-9]{1,10}$";
const DECIMAL_DIGITS_PATTERN = new RegExp(DECIMAL_DIGITS);

/**
 * A page number in a path (`/pages/:n`): an integer, kept a string for Elysia and turned into a
 * number by the handler; the service answers 404 outside 1..pageCount (so a sign is accepted
 * here). An integer schema would make Elysia run TypeBox's generic Decode on every request to
 * convert it, a visible part of a page request's cost (issue 14).
 */
export const PageNumberParam = t.String({ pattern: "^-?[0-9]{1,10}$", description: "the page number, from 1" });

/**
 * The schema of an optional integer query parameter, read with `integerQuery`. The value stays a
 * string for Elysia: its own coercion takes `1e20`, `0x10` or ` 7` for numbers, so the one
 * parser below decides, and this schema documents the range and refuses non-digits early.
 */
export function IntegerQuery(range: IntegerRange, description: string) {
  return t.Optional(
    t.String({ pattern: DECIMAL_DIGITS, description: `${description}: an integer from ${range.minimum} to ${range.maximum}` }),
  );
}

/**
 * The one parser of numeric query parameters (REST and OPDS): decimal digits within the range,
 * `undefined` when absent, else a 400 naming the parameter in `details.fields`.
 */
export function integerQuery(value: unknown, name: string, range: IntegerRange): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "string" && DECIMAL_DIGITS_PATTERN.test(value) ? Number(value) : Number.NaN;
  if (!(number >= range.minimum && number <= range.maximum)) {
    const problem = `must be an integer from ${range.minimum} to ${range.maximum}`;
    throw new DomainError("BadRequest", `invalid query parameters: ${name}: ${problem}`, { fields: { [name]: problem } });
  }
  return number;
}

/** An API key's scope (src/auth/api-keys.ts): "full" (the default) or "reader" (read, record reading progress). */
export const ApiKeyScopeSchema = t.Union([t.Literal("full"), t.Literal("reader")]);
