/**
 * Komga's search condition trees (`POST /series/list`, `POST /books/list`), e.g.
 *   {"condition":{"allOf":[{"libraryId":{"operator":"is","value":"..."}},
 *                          {"anyOf":[{"readStatus":{"operator":"is","value":"UNREAD"}}, ...]}]},
 *    "fullTextSearch":"..."}
 * Longbox's lists take a conjunction of "any of these values" filters, which is what Komga
 * clients build: `allOf` merges its parts, `anyOf` of conditions on one field becomes a list of
 * values, and a leaf is a field with operator `is` (or `isTrue`/`isFalse`; `isNot` on fields
 * with a closed set of values, meaning every other value). Anything else is a 400 naming what is
 * supported, never a silently wrong answer. Extra keys (kotlinx's "type") are ignored, as Komga
 * ignores them.
 */
import { DomainError } from "../../errors";

/** Field -> the values any of which must match; booleans for isTrue/isFalse fields. */
export type FlatCondition = Map<string, unknown[]>;

/** The fields a list supports: each with its closed set of values (isNot allowed), or null. */
export type ConditionFields = Readonly<Record<string, readonly string[] | null>>;

const unsupported = (what: string, fields: ConditionFields) =>
  new DomainError(
    "BadRequest",
    `unsupported search condition: ${what}. Longbox supports allOf, anyOf of one field, and the operators is, isTrue, isFalse (isNot on ${Object.keys(fields)
      .filter((field) => fields[field])
      .join(", ")}) on: ${Object.keys(fields).join(", ")}`,
  );

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Deeper trees are refused (clients nest two or three levels). */
const MAX_DEPTH = 16;

/** The tree as a conjunction of value lists over `fields`; undefined or {} means no condition. */
export function flattenCondition(condition: unknown, fields: ConditionFields, depth = 0): FlatCondition {
  const flat: FlatCondition = new Map();
  if (condition === undefined || condition === null) return flat;
  addCondition(flat, condition, fields, depth);
  return flat;
}

function addCondition(flat: FlatCondition, condition: unknown, fields: ConditionFields, depth: number): void {
  if (depth > MAX_DEPTH) throw unsupported(`conditions nested more than ${MAX_DEPTH} levels`, fields);
  if (!isObject(condition)) throw unsupported("a condition must be an object", fields);
  const keys = Object.keys(condition).filter((key) => key !== "type");
  if (keys.length === 0) return;
  if (keys.length > 1) throw unsupported(`one condition has several keys (${keys.join(", ")})`, fields);
  const key = keys[0]!;
  const value = condition[key];
  if (key === "allOf") {
    if (!Array.isArray(value)) throw unsupported("allOf must be a list", fields);
    for (const part of value) addCondition(flat, part, fields, depth + 1);
    return;
  }
  if (key === "anyOf") {
    if (!Array.isArray(value)) throw unsupported("anyOf must be a list", fields);
    const alternatives = value.map((part) => flattenCondition(part, fields, depth + 1));
    const nonEmpty = alternatives.filter((alternative) => alternative.size > 0);
    if (nonEmpty.length < alternatives.length) return; // an empty alternative matches everything
    const field = nonEmpty[0]?.keys().next().value;
    if (field === undefined) return;
    if (!nonEmpty.every((alternative) => alternative.size === 1 && alternative.has(field))) {
      throw unsupported("anyOf over different fields", fields);
    }
    intersect(flat, field, nonEmpty.flatMap((alternative) => alternative.get(field)!));
    return;
  }
  if (!Object.hasOwn(fields, key)) throw unsupported(`the field ${key}`, fields);
  if (!isObject(value)) throw unsupported(`${key} needs {"operator":...}`, fields);
  switch (value.operator) {
    case "is":
    case "Is":
      intersect(flat, key, [value.value]);
      return;
    case "isTrue":
    case "IsTrue":
      intersect(flat, key, [true]);
      return;
    case "isFalse":
    case "IsFalse":
      intersect(flat, key, [false]);
      return;
    case "isNot":
    case "IsNot": {
      const domain = fields[key];
      if (!domain) throw unsupported(`the operator isNot on ${key}`, fields);
      intersect(flat, key, domain.filter((candidate) => candidate !== value.value));
      return;
    }
    default:
      throw unsupported(`the operator ${String(value.operator)} on ${key}`, fields);
  }
}

/** Two conditions on one field must both hold: only the common values remain. */
function intersect(flat: FlatCondition, field: string, values: unknown[]): void {
  const existing = flat.get(field);
  const key = (value: unknown) => JSON.stringify(value);
  flat.set(field, existing ? existing.filter((value) => values.some((other) => key(other) === key(value))) : values);
}

/** The string values of a field (other types are a 400). */
export function stringValues(flat: FlatCondition, field: string): string[] | undefined {
  const values = flat.get(field);
  if (values === undefined) return undefined;
  if (!values.every((value): value is string => typeof value === "string")) {
    throw new DomainError("BadRequest", `the values of ${field} must be strings`);
  }
  return values;
}

/** A boolean field: undefined when absent or when both true and false were asked for. */
export function booleanValue(flat: FlatCondition, field: string): boolean | undefined {
  const values = flat.get(field);
  return values && values.length === 1 && typeof values[0] === "boolean" ? values[0] : undefined;
}
