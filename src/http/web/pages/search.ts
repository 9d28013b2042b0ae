/**
 * GET /search?q=: series and books whose names (or a book's authors) contain the text. htmx asks
 * while the person types in the header's search field and gets the short popup list; a plain
 * request (Enter, a link) gets the full results page.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../../services";
import type { WebPageGuard } from "../page-guard";
import { htmlResponse, page, renderTemplate, wantsFragment } from "../views";

const POPUP_LIMITS = { series: 5, books: 8 };
const PAGE_LIMITS = { series: 60, books: 120 };

export function searchPage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-search-page" }).use(guard).get(
    "/search",
    async ({ viewer, query, request }) => {
      const q = query.q?.trim() ?? "";
      const fragment = wantsFragment(request);
      const limits = fragment ? POPUP_LIMITS : PAGE_LIMITS;
      const [series, books] = q
        ? await Promise.all([
            services.series.list(viewer.user, { q }, { offset: 0, limit: limits.series }),
            services.books.list(viewer.user, { q, deleted: false }, { offset: 0, limit: limits.books }, { field: "title", direction: "asc" }),
          ])
        : [{ rows: [], total: 0 }, { rows: [], total: 0 }];
      const data = { title: q ? `Search: ${q}` : "Search", viewer, q, query: q, series: series.rows, seriesTotal: series.total, books: books.rows, bookTotal: books.total };
      return fragment ? htmlResponse(renderTemplate("partials/search-results", data)) : page("pages/search", data);
    },
    { page: "user", query: t.Object({ q: t.Optional(t.String({ maxLength: 200 })) }) },
  );
}
