/**
 * Komga's search condition trees (`POST /series/list`, `POST /books/list`), e.g.
 *   {"condition":{"allOf":[{"libraryId":{"operator":"is","value":"..."}},
 *                          {"releaseDate":{"operator":"isInTheLast","duration":"PT720H"}}]}}
 * as Longbox's condition trees (src/db/repositories/condition-trees.ts), with the meaning
 * Komga gives them (gotson/komga: domain/model/SearchCondition.kt, SearchOperator.kt,
 * infrastructure/jooq/SeriesSearchHelper.kt, BookSearchHelper.kt, SearchOperatorUtils.kt):
 * every condition type and operator Komga defines for series and books. Fields Longbox keeps
 * no data for behave as Komga's missing values do: no age rating or sharing label; no series is
 * a one-shot, deleted or complete; every series is ONGOING. A collection or read list the caller
 * is not shown (another user's) holds nothing for them. Extra keys
 * (kotlinx's "type") are ignored, as Komga ignores them; a malformed condition is a 400 that
 * says what is wrong.
 */
import { isUuid, type AnalysisState, type BookCondition, type BookLeaf, type ConditionTree, type DateTest, type ReadStatus, type SeriesCondition, type SeriesLeaf, type TextTest } from "../../db";
import { DomainError } from "../../errors";
import type { SeriesStatus } from "../../db/schema/types";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Deeper trees are refused (clients nest two or three levels). */
const MAX_DEPTH = 16;

const bad = (message: string) => new DomainError("BadRequest", `invalid search condition: ${message}`);

type Tree<Leaf> = ConditionTree<Leaf>;
const ALWAYS: { always: boolean } = { always: true };
const NEVER: { always: boolean } = { always: false };
const negate = <Leaf>(tree: Tree<Leaf>): Tree<Leaf> => ({ not: tree });

/** One operator object `{"operator":..., ...}` of the field `field`. */
interface Operator {
  field: string;
  name: string;
  body: Record<string, unknown>;
}

function operatorOf(field: string, value: unknown): Operator {
  if (!isObject(value) || typeof value.operator !== "string") throw bad(`${field} needs {"operator": ...}`);
  return { field, name: value.operator, body: value };
}

const unsupportedOperator = (operator: Operator, allowed: string[]) =>
  bad(`the operator ${operator.name} does not apply to ${operator.field} (allowed: ${allowed.join(", ")})`);

function valueOf<T>(operator: Operator, check: (value: unknown) => value is T, what: string): T {
  if (!check(operator.body.value)) throw bad(`${operator.field} ${operator.name} needs a value that is ${what}`);
  return operator.body.value;
}
const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Equality (is, isNot) of a value; `leaf` turns the value into a condition. */
function equality<Leaf, T>(operator: Operator, check: (value: unknown) => value is T, what: string, leaf: (value: T) => Tree<Leaf>): Tree<Leaf> {
  if (operator.name !== "is" && operator.name !== "isNot") throw unsupportedOperator(operator, ["is", "isNot"]);
  const tree = leaf(valueOf(operator, check, what));
  return operator.name === "is" ? tree : negate(tree);
}

/** Equality with isNull / isNotNull (`any`: the field holds some value). */
function nullableEquality<Leaf>(operator: Operator, leaf: (value: string) => Tree<Leaf>, any: Tree<Leaf>): Tree<Leaf> {
  if (operator.name === "isNull") return negate(any);
  if (operator.name === "isNotNull") return any;
  if (operator.name !== "is" && operator.name !== "isNot") throw unsupportedOperator(operator, ["is", "isNot", "isNull", "isNotNull"]);
  return equality(operator, isString, "a string", leaf);
}

function booleanOperator(operator: Operator): boolean {
  if (operator.name === "isTrue") return true;
  if (operator.name === "isFalse") return false;
  throw unsupportedOperator(operator, ["isTrue", "isFalse"]);
}

const TEXT_OPERATORS: Record<string, { op: TextTest["op"]; negated: boolean }> = {
  is: { op: "is", negated: false },
  isNot: { op: "is", negated: true },
  contains: { op: "contains", negated: false },
  doesNotContain: { op: "contains", negated: true },
  beginsWith: { op: "beginsWith", negated: false },
  doesNotBeginWith: { op: "beginsWith", negated: true },
  endsWith: { op: "endsWith", negated: false },
  doesNotEndWith: { op: "endsWith", negated: true },
};

function textOperator<Leaf>(operator: Operator, leaf: (test: TextTest) => Tree<Leaf>): Tree<Leaf> {
  const known = TEXT_OPERATORS[operator.name];
  if (!known) throw unsupportedOperator(operator, Object.keys(TEXT_OPERATORS));
  const tree = leaf({ op: known.op, value: valueOf(operator, isString, "a string") });
  return known.negated ? negate(tree) : tree;
}

/** Java's Duration.parse (PnDTnHnMn.nS) in whole days, as Komga's `duration.toDays()`. */
function durationDays(operator: Operator): number {
  const text = operator.body.duration;
  const match = typeof text === "string" ? /^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+(?:[.,]\d+)?)S)?)?$/i.exec(text) : null;
  if (!match || text === "P" || /T$/i.test(String(text))) throw bad(`${operator.field} ${operator.name} needs an ISO-8601 duration such as "PT720H" or "P30D"`);
  const [, sign, days, hours, minutes, seconds] = match;
  const totalSeconds = Number(days ?? 0) * 86_400 + Number(hours ?? 0) * 3_600 + Number(minutes ?? 0) * 60 + Number((seconds ?? "0").replace(",", "."));
  return Math.trunc((sign === "-" ? -totalSeconds : totalSeconds) / 86_400);
}

/** The UTC calendar date of a ZonedDateTime such as "2024-01-31T23:00:00-02:00". */
function utcDate(operator: Operator): string {
  const text = operator.body.dateTime;
  const time = typeof text === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})(\[[^\]]+\])?$/.test(text) ? Date.parse(text.replace(/\[[^\]]+\]$/, "")) : NaN;
  if (Number.isNaN(time)) throw bad(`${operator.field} ${operator.name} needs a dateTime with its offset, such as "2024-01-31T00:00:00Z"`);
  return new Date(time).toISOString().slice(0, 10);
}

/** Today minus `days`, in UTC (Komga's isInTheLast / isNotInTheLast). */
function daysAgo(days: number, now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - days * 86_400_000).toISOString().slice(0, 10);
}

/** Komga's date operators: a test on a known date, or whether the date is known at all. */
function dateOperator(operator: Operator, now: Date): DateTest | "isNull" {
  switch (operator.name) {
    case "after":
      return { op: "after", date: utcDate(operator) };
    case "before":
      return { op: "before", date: utcDate(operator) };
    case "isInTheLast":
      return { op: "after", date: daysAgo(durationDays(operator), now) };
    case "isNotInTheLast":
      return { op: "before", date: daysAgo(durationDays(operator), now) };
    case "isNull":
      return "isNull";
    case "isNotNull":
      return { op: "known" };
    default:
      throw unsupportedOperator(operator, ["before", "after", "isInTheLast", "isNotInTheLast", "isNull", "isNotNull"]);
  }
}

/** A label no Longbox series has (sharing labels, whose Longbox counterparts are not exposed). */
function missingLabel(operator: Operator): Tree<never> {
  return nullableEquality<never>(operator, () => NEVER, NEVER);
}

function enumValue<T extends string>(values: readonly T[]) {
  return (value: unknown): value is T => typeof value === "string" && (values as readonly string[]).includes(value);
}

export const READ_STATUSES = ["UNREAD", "IN_PROGRESS", "READ"] as const satisfies readonly ReadStatus[];
const SERIES_STATUSES = ["ENDED", "ONGOING", "ABANDONED", "HIATUS"] as const;
/** Komga media statuses as Longbox analysis states (null: no Longbox book is in it). */
export const MEDIA_STATUSES: Record<string, AnalysisState | null> = { READY: "ready", ERROR: "error", UNKNOWN: "pending", UNSUPPORTED: null, OUTDATED: null };
const MEDIA_PROFILES = ["DIVINA", "PDF", "EPUB"] as const;
const POSTER_TYPES = ["GENERATED", "SIDECAR", "USER_UPLOADED"];

interface AuthorMatch {
  name?: string;
  role?: string;
}
const isAuthorMatch = (value: unknown): value is AuthorMatch =>
  isObject(value) && (value.name === undefined || value.name === null || isString(value.name)) && (value.role === undefined || value.role === null || isString(value.role));
/** The same leaf for books and series: a book's authors, or a series' own. */
type AuthorLeaf = Extract<BookLeaf, { field: "author" }>;
const authorLeaf = (match: AuthorMatch): AuthorLeaf => ({ field: "author", ...(match.name == null ? {} : { name: match.name }), ...(match.role == null ? {} : { role: match.role }) });

/** Komga: an author condition without name or role is no condition at all (for isNot too). */
function authorCondition<Leaf>(operator: Operator, leaf: (author: AuthorLeaf) => Tree<Leaf>): Tree<Leaf> {
  const match = valueOf(operator, isAuthorMatch, "{name?, role?}");
  if (match.name == null && match.role == null) {
    if (operator.name !== "is" && operator.name !== "isNot") throw unsupportedOperator(operator, ["is", "isNot"]);
    return ALWAYS;
  }
  return equality(operator, isAuthorMatch, "{name?, role?}", (value) => leaf(authorLeaf(value)));
}

/** The combinators and the walk shared by series and books; `leaf` reads one `{field: operator}`. */
function parseTree<Leaf>(condition: unknown, leaf: (operator: Operator) => Tree<Leaf>, depth = 0): Tree<Leaf> {
  if (depth > MAX_DEPTH) throw bad(`conditions nested more than ${MAX_DEPTH} levels`);
  if (!isObject(condition)) throw bad("a condition must be an object");
  const keys = Object.keys(condition).filter((key) => key !== "type");
  if (keys.length === 0) return ALWAYS;
  if (keys.length > 1) throw bad(`one condition has several keys (${keys.join(", ")})`);
  const key = keys[0]!;
  const value = condition[key];
  if (key === "allOf" || key === "anyOf") {
    if (!Array.isArray(value)) throw bad(`${key} must be a list`);
    const parts = value.map((part) => parseTree(part, leaf, depth + 1));
    return key === "allOf" ? { allOf: parts } : { anyOf: parts };
  }
  return leaf(operatorOf(key, value));
}

const unknownField = (field: string, kind: string) => bad(`${kind} have no condition ${field}`);

/** A book condition (SearchCondition.Book). `userId`: whose read status; `now`: for isInTheLast. */
export function bookCondition(condition: unknown, userId: string, now = new Date()): BookCondition {
  return parseTree<BookLeaf>(condition, (operator) => bookLeaf(operator, userId, now));
}

function bookLeaf(operator: Operator, userId: string, now: Date): Tree<BookLeaf> {
  switch (operator.field) {
    case "libraryId":
    case "seriesId": {
      const field = operator.field;
      // Not a Longbox id: no book has it (and it must not reach PostgreSQL as a uuid).
      return equality(operator, isString, "an id", (value): Tree<BookLeaf> => (isUuid(value) ? { field, value } : NEVER));
    }
    case "readListId":
      return equality(operator, isString, "an id", (listId): Tree<BookLeaf> => (isUuid(listId) ? { field: "readList", listId, userId } : NEVER));
    case "deleted":
      return booleanOperator(operator) ? { field: "deleted" } : negate({ field: "deleted" });
    case "oneShot":
      return booleanOperator(operator) ? NEVER : ALWAYS;
    case "title":
      return textOperator(operator, (test): BookLeaf => ({ field: "title", test }));
    case "releaseDate": {
      const test = dateOperator(operator, now);
      return test === "isNull" ? negate({ field: "releaseDate", test: { op: "known" } }) : { field: "releaseDate", test };
    }
    case "numberSort": {
      if (operator.name === "is" || operator.name === "isNot") return equality(operator, isNumber, "a number", (value): BookLeaf => ({ field: "numberSort", test: { op: "is", value } }));
      // Komga's bounds are inclusive (greaterOrEqual, lessOrEqual).
      const bound = { greaterThan: "atLeast", lessThan: "atMost" } as const;
      if (!(operator.name in bound)) throw unsupportedOperator(operator, ["is", "isNot", "greaterThan", "lessThan"]);
      return { field: "numberSort", test: { op: bound[operator.name as keyof typeof bound], value: valueOf(operator, isNumber, "a number") } };
    }
    case "tag":
      return nullableEquality<BookLeaf>(operator, (value) => ({ field: "tag", value }), { field: "tag" });
    case "readStatus":
      return equality(operator, enumValue(READ_STATUSES), READ_STATUSES.join(", "), (status): BookLeaf => ({ field: "readStatus", userId, status }));
    case "mediaStatus":
      return equality(operator, enumValue(Object.keys(MEDIA_STATUSES)), Object.keys(MEDIA_STATUSES).join(", "), (status): Tree<BookLeaf> => {
        const state = MEDIA_STATUSES[status];
        return state ? { field: "analysis", state } : NEVER;
      });
    case "mediaProfile":
      return equality(operator, enumValue(MEDIA_PROFILES), MEDIA_PROFILES.join(", "), (profile): Tree<BookLeaf> => {
        if (profile === "EPUB") return { field: "fileFormat", value: "epub" };
        if (profile === "PDF") return { field: "fileFormat", value: "pdf" };
        return { not: { anyOf: [{ field: "fileFormat", value: "epub" }, { field: "fileFormat", value: "pdf" }] } };
      });
    case "author":
      return authorCondition<BookLeaf>(operator, (author) => author);
    case "poster":
      return equality(operator, isObject, "{type?, selected?}", (poster) => posterCondition(poster));
    default:
      throw unknownField(operator.field, "books");
  }
}

/**
 * Komga's poster (thumbnail) match. A Longbox book has a generated thumbnail, selected unless
 * an uploaded cover replaces it; no sidecar images.
 */
function posterCondition(poster: Record<string, unknown>): Tree<BookLeaf> {
  const type = poster.type ?? null;
  const selected = poster.selected ?? null;
  if ((type !== null && !POSTER_TYPES.includes(String(type))) || (selected !== null && typeof selected !== "boolean")) {
    throw bad(`poster needs {type?: ${POSTER_TYPES.join(" | ")}, selected?: boolean}`);
  }
  if (type === null && selected === null) return ALWAYS;
  const uploaded: Tree<BookLeaf> = { field: "customCover" };
  const byType: Record<string, { exists: Tree<BookLeaf>; selected: Tree<BookLeaf>; unselected: Tree<BookLeaf> }> = {
    GENERATED: { exists: ALWAYS, selected: negate(uploaded), unselected: uploaded },
    USER_UPLOADED: { exists: uploaded, selected: uploaded, unselected: NEVER },
    SIDECAR: { exists: NEVER, selected: NEVER, unselected: NEVER },
  };
  if (type === null) return selected ? ALWAYS : uploaded;
  const candidates = byType[String(type)]!;
  return selected === null ? candidates.exists : selected ? candidates.selected : candidates.unselected;
}

/** A series condition (SearchCondition.Series). */
export function seriesCondition(condition: unknown, userId: string, now = new Date()): SeriesCondition {
  return parseTree(condition, (operator) => seriesLeaf(operator, userId, now));
}

type SeriesTree = Tree<SeriesLeaf>;
const anyBook = (condition: BookCondition): SeriesTree => ({ anyBook: condition });

function seriesLeaf(operator: Operator, userId: string, now: Date): SeriesTree {
  switch (operator.field) {
    case "libraryId":
      return equality(operator, isString, "an id", (value): SeriesTree => (isUuid(value) ? { field: "libraryId", value } : NEVER));
    case "collectionId":
      return equality(operator, isString, "an id", (listId): SeriesTree => (isUuid(listId) ? { field: "collection", listId, userId } : NEVER));
    case "deleted":
      // A series with no present book is out of every list: listed series are never deleted.
      return booleanOperator(operator) ? NEVER : ALWAYS;
    case "complete":
      // Komga: complete needs a total book count, which Longbox series do not have.
      booleanOperator(operator);
      return NEVER;
    case "oneShot":
      return booleanOperator(operator) ? NEVER : ALWAYS;
    case "title":
      return textOperator(operator, (test): SeriesTree => ({ field: "name", test }));
    case "titleSort":
      return textOperator(operator, (test): SeriesTree => ({ field: "nameSort", test }));
    case "releaseDate":
      return seriesReleaseDate(dateOperator(operator, now));
    case "tag":
      return nullableEquality<SeriesLeaf>(operator, (value) => ({ field: "tag", value }), { field: "tag" });
    case "genre":
      return nullableEquality<SeriesLeaf>(operator, (value) => ({ field: "genre", value }), { field: "genre" });
    case "sharingLabel":
      return missingLabel(operator);
    case "publisher":
      return equality(operator, isString, "a string", (value): SeriesTree => ({ field: "publisher", value }));
    case "language":
      return equality(operator, isString, "a string", (value): SeriesLeaf => ({ field: "language", value }));
    case "ageRating": {
      if (operator.name === "isNull") return negate<SeriesLeaf>({ field: "ageRating", test: { op: "known" } });
      if (operator.name === "isNotNull") return { field: "ageRating", test: { op: "known" } };
      if (operator.name === "is" || operator.name === "isNot") return equality(operator, isNumber, "a number", (value): SeriesLeaf => ({ field: "ageRating", test: { op: "is", value } }));
      const bound = { greaterThan: "atLeast", lessThan: "atMost" } as const;
      if (!(operator.name in bound)) throw unsupportedOperator(operator, ["is", "isNot", "greaterThan", "lessThan", "isNull", "isNotNull"]);
      return { field: "ageRating", test: { op: bound[operator.name as keyof typeof bound], value: valueOf(operator, isNumber, "a number") } };
    }
    case "readStatus":
      return equality(operator, enumValue(READ_STATUSES), READ_STATUSES.join(", "), (status): SeriesTree => ({ field: "readStatus", userId, status }));
    case "seriesStatus":
      return equality(operator, enumValue(SERIES_STATUSES), SERIES_STATUSES.join(", "), (status): SeriesLeaf => ({ field: "status", value: status.toLowerCase() as SeriesStatus }));
    case "author":
      // The series' own authors, as Komga's series search reads its series' aggregated authors.
      return authorCondition<SeriesLeaf>(operator, (author) => author);
    default:
      throw unknownField(operator.field, "series");
  }
}

/**
 * A series' release date is its earliest book's (Komga's aggregation): before X when some book
 * is; after X when some book has a date and none is on or before X.
 */
function seriesReleaseDate(test: DateTest | "isNull"): SeriesTree {
  const dated = anyBook({ field: "releaseDate", test: { op: "known" } });
  if (test === "isNull") return negate(dated);
  if (test.op !== "after") return anyBook({ field: "releaseDate", test });
  return { allOf: [dated, negate(anyBook({ allOf: [{ field: "releaseDate", test: { op: "known" } }, negate({ field: "releaseDate", test })] }))] };
}
