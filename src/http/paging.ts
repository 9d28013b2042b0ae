/**
 * Paged lists, per the contract: query `page` (1-based, default 1, at most MAX_PAGE) and
 * `pageSize` (default 50, at most 500); anything else is a 400 (see `integerQuery`), answered with the spec's PaginatedResponse. Link URLs are
 * absolute paths with the rest of the query preserved, under the path prefix of
 * `application.base_url` (a proxy may serve the service under `/longbox` and strip that).
 *
 *   .get("/api/v1/things", async ({ query, request }) => {
 *     const page = pageRequest(query);
 *     const { rows, total } = await things.list(page.offset, page.pageSize);
 *     return paginated(request, services.config.application, page, total, rows.map(toThingDto));
 *   }, { query: pagingQuery })
 */
import { t } from "elysia";
import type { Config } from "../config/schema";
import { publicPathPrefix } from "./client-address";
import { IntegerQuery, integerQuery, type IntegerRange } from "./params";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Keeps offsets far inside what both databases take (500 * 10^6 rows). */
export const MAX_PAGE = 1_000_000;

const PAGE: IntegerRange = { minimum: 1, maximum: MAX_PAGE };
const PAGE_SIZE: IntegerRange = { minimum: 1, maximum: MAX_PAGE_SIZE };

export const pagingQuery = t.Object({
  page: IntegerQuery(PAGE, "the page, from 1"),
  pageSize: IntegerQuery(PAGE_SIZE, "entries per page"),
});

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface PaginatedResponse<T> {
  data: T[];
  links: { first: string; last: string; self: string; next: string | null; prev: string | null };
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export function pageRequest(query: { page?: string; pageSize?: string }): PageRequest {
  const page = integerQuery(query.page, "page", PAGE) ?? 1;
  const pageSize = integerQuery(query.pageSize, "pageSize", PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export function paginated<T>(
  request: Request,
  application: Pick<Config["application"], "base_url">,
  { page, pageSize }: PageRequest,
  total: number,
  data: T[],
): PaginatedResponse<T> {
  const totalPages = Math.ceil(total / pageSize);
  const url = new URL(request.url);
  const prefix = publicPathPrefix(application.base_url);
  const link = (target: number) => {
    url.searchParams.set("page", String(target));
    return `${prefix}${url.pathname}?${url.searchParams.toString()}`;
  };
  const last = Math.max(totalPages, 1);
  return {
    data,
    links: {
      first: link(1),
      last: link(last),
      self: link(page),
      next: page < totalPages ? link(page + 1) : null,
      prev: page > 1 ? link(Math.min(page - 1, last)) : null,
    },
    page,
    pageSize,
    total,
    totalPages,
  };
}
