/**
 * Paged lists, per the contract: query `page` (1-based, default 1) and `pageSize` (default 50,
 * at most 500; more is a 400), answered with the spec's PaginatedResponse. Link URLs are
 * absolute paths with the rest of the query preserved.
 *
 *   .get("/api/v1/things", async ({ query, request }) => {
 *     const page = pageRequest(query);
 *     const { rows, total } = await things.list(page.offset, page.pageSize);
 *     return paginated(request, page, total, rows.map(toThingDto));
 *   }, { query: pagingQuery })
 */
import { t } from "elysia";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export const pagingQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1 })),
  pageSize: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
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

export function pageRequest(query: { page?: number; pageSize?: number }): PageRequest {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export function paginated<T>(request: Request, { page, pageSize }: PageRequest, total: number, data: T[]): PaginatedResponse<T> {
  const totalPages = Math.ceil(total / pageSize);
  const url = new URL(request.url);
  const link = (target: number) => {
    url.searchParams.set("page", String(target));
    return `${url.pathname}?${url.searchParams.toString()}`;
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
