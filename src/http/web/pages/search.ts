/**
 * GET /search?q=: series and books whose names (or a book's authors) contain the text, and the
 * series whose books carry it as a genre or a tag ("science fiction"). htmx asks
 * while the person types in the header's search field and gets the short popup list; a plain
 * request (Enter, a link) gets the full results page.
 */
import { Elysia, t } from "elysia";
import type { SeriesView } from "../../../db";
import type { Services } from "../../../services";
import type { WebPageGuard } from "../page-guard";
import { htmlResponse, page, renderTemplate, wantsFragment } from "../views";

const EMPTY = { rows: [], total: 0 };

/**
 * Series found by name, then by genre, then by tag, each once, cut at `limit`. With every list
 * whole the total is the exact distinct count; otherwise the largest list's total, the best
 * lower bound without another query.
 */
function mergeSeries(lists: { rows: SeriesView[]; total: number }[], limit: number): { rows: SeriesView[]; total: number } {
  const byId = new Map<string, SeriesView>();
  for (const list of lists) for (const series of list.rows) if (!byId.has(series.id)) byId.set(series.id, series);
  const complete = lists.every((list) => list.rows.length === list.total);
  return { rows: [...byId.values()].slice(0, limit), total: complete ? byId.size : Math.max(byId.size, ...lists.map((list) => list.total)) };
}

const POPUP_LIMITS = { series: 5, books: 8 };
const PAGE_LIMITS = { series: 60, books: 120 };

export function searchPage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-search-page" }).use(guard).get(
    "/search",
    async ({ viewer, query, request }) => {
      const q = query.q?.trim() ?? "";
      const fragment = wantsFragment(request);
      const limits = fragment ? POPUP_LIMITS : PAGE_LIMITS;
      const [named, genre, tag, books] = q
        ? await Promise.all([
            services.series.list(viewer.user, { q }, { offset: 0, limit: limits.series }),
            services.series.list(viewer.user, { metadata: { genres: [q] } }, { offset: 0, limit: limits.series }),
            services.series.list(viewer.user, { metadata: { tags: [q] } }, { offset: 0, limit: limits.series }),
            services.books.list(viewer.user, { q, deleted: false }, { offset: 0, limit: limits.books }, { field: "title", direction: "asc" }),
          ])
        : [EMPTY, EMPTY, EMPTY, EMPTY];
      const series = mergeSeries([named, genre, tag], limits.series);
      const data = { title: q ? viewer.translator.t("search.titleWithQuery", { query: q }) : viewer.translator.t("search.title"), viewer, q, query: q, series: series.rows, seriesTotal: series.total, books: books.rows, bookTotal: books.total };
      return fragment ? htmlResponse(renderTemplate("partials/search-results", data)) : page("pages/search", data);
    },
    { page: "user", query: t.Object({ q: t.Optional(t.String({ maxLength: 200 })) }) },
  );
}
