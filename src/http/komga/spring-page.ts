/**
 * Spring Data's paging as Komga speaks it: query `page` (from 0), `size` (default 20),
 * repeated `sort=property,asc|desc`, `unpaged=true`, read as leniently as Spring reads them
 * (a malformed or too small size is the default, a negative page 0, a size above MAX_SIZE
 * MAX_SIZE); answers as a Spring Page with every field
 * (Komelia's client has no defaults). List parameters come comma-joined or repeated
 * (`library_id=a,b`, `read_status=UNREAD&read_status=IN_PROGRESS`); both mean "any of".
 */
import { DomainError } from "../../errors";

const DEFAULT_SIZE = 20;
/** Komga caps nothing; Longbox bounds a page (unpaged lists are bounded by what they list). */
const MAX_SIZE = 1000;

export interface SortOrder {
  property: string;
  direction: "asc" | "desc";
}

export interface Pageable {
  page: number;
  size: number;
  unpaged: boolean;
  sort: SortOrder[];
}

const badRequest = (message: string) => new DomainError("BadRequest", message);

/** The request's query, read as is: repeated parameters stay repeated. */
export function queryOf(request: Request): URLSearchParams {
  return new URL(request.url).searchParams;
}

/** Spring's leniency: a missing or malformed number is the default, one out of range is clamped. */
function integerParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null || !/^-?\d{1,12}$/.test(raw)) return fallback;
  const value = Number(raw);
  return value < min ? (name === "size" ? fallback : min) : Math.min(value, max);
}

/** The values of a list parameter, comma-joined or repeated, trimmed, empty ones dropped. */
function listParam(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value !== "");
}

/** A list parameter, or undefined when absent (no filter). */
export function optionalList(params: URLSearchParams, name: string): string[] | undefined {
  const values = listParam(params, name);
  return values.length > 0 ? values : undefined;
}

export function booleanParam(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  if (raw !== "true" && raw !== "false") throw badRequest(`${name} must be true or false`);
  return raw === "true";
}

export function pageableOf(params: URLSearchParams): Pageable {
  const sort: SortOrder[] = [];
  // `sort=a,asc&sort=b,desc`; also `sort=a,b,desc` (Spring: the direction applies to every property).
  for (const value of params.getAll("sort")) {
    const parts = value.split(",").map((part) => part.trim()).filter((part) => part !== "");
    const last = parts.at(-1)?.toLowerCase();
    const direction = last === "desc" ? "desc" : "asc";
    const properties = last === "asc" || last === "desc" ? parts.slice(0, -1) : parts;
    for (const property of properties) sort.push({ property, direction });
  }
  return {
    page: integerParam(params, "page", 0, 0, 10_000_000),
    size: integerParam(params, "size", DEFAULT_SIZE, 1, MAX_SIZE),
    unpaged: booleanParam(params, "unpaged") ?? false,
    sort,
  };
}

/** Unpaged lists answer at most this many rows. */
export const UNPAGED_LIMIT = 100_000;

/** The slice of rows a pageable asks for; unpaged asks for everything (up to UNPAGED_LIMIT). */
export function windowOf(pageable: Pageable): { offset: number; limit: number } {
  return pageable.unpaged ? { offset: 0, limit: UNPAGED_LIMIT } : { offset: pageable.page * pageable.size, limit: pageable.size };
}

export interface SpringPage<T> {
  content: T[];
  pageable: {
    offset: number;
    pageNumber: number;
    pageSize: number;
    paged: boolean;
    unpaged: boolean;
    sort: SpringSort;
  };
  totalElements: number;
  totalPages: number;
  last: boolean;
  first: boolean;
  number: number;
  size: number;
  numberOfElements: number;
  empty: boolean;
  sort: SpringSort;
}

interface SpringSort {
  empty: boolean;
  sorted: boolean;
  unsorted: boolean;
}

/**
 * The Spring Page of `content` (one page of `total`). Unpaged answers are page 0 with
 * size max(total, 20), as Komga writes them.
 */
export function springPage<T>(content: T[], total: number, pageable: Pageable): SpringPage<T> {
  const size = pageable.unpaged ? Math.max(total, DEFAULT_SIZE) : pageable.size;
  const number = pageable.unpaged ? 0 : pageable.page;
  const totalPages = Math.ceil(total / size);
  const sort = { empty: pageable.sort.length === 0, sorted: pageable.sort.length > 0, unsorted: pageable.sort.length === 0 };
  return {
    content,
    pageable: { offset: number * size, pageNumber: number, pageSize: size, paged: true, unpaged: false, sort },
    totalElements: total,
    totalPages,
    last: number >= totalPages - 1,
    first: number === 0,
    number,
    size,
    numberOfElements: content.length,
    empty: content.length === 0,
    sort,
  };
}
