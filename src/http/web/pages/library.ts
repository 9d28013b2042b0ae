/**
 * GET /libraries/:id: the library's series as a grid of covers, filtered by name and sorted by
 * the series list's own fields. htmx asks for the next page when the last card scrolls into
 * view (and for page 1 when the filter or the sort changes): those get the grid fragment only.
 */
import { Elysia, t } from "elysia";
import type { SeriesSort } from "../../../db";
import type { Services } from "../../../services";
import { IdParams } from "../../params";
import { parseSort } from "../../sorting";
import type { WebPageGuard } from "../page-guard";
import { page, renderTemplate, htmlResponse, urlWith, wantsFragment } from "../views";

const GRID_PAGE_SIZE = 48;
const SERIES_SORTS: readonly SeriesSort[] = ["name", "createdAt", "updatedAt", "year"];

const SORT_OPTIONS = [
  { value: "name,asc", label: "Name (A–Z)" },
  { value: "name,desc", label: "Name (Z–A)" },
  { value: "createdAt,desc", label: "Recently added" },
  { value: "updatedAt,desc", label: "Recently updated" },
  { value: "year,desc", label: "Year (newest)" },
  { value: "year,asc", label: "Year (oldest)" },
];

export function libraryPage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-library-page" }).use(guard).get(
    "/libraries/:id",
    async ({ viewer, params, query, request }) => {
      const pageNumber = query.page ?? 1;
      const sort = SORT_OPTIONS.some((option) => option.value === query.sort) ? query.sort! : "name,asc";
      const q = query.q?.trim() ?? "";
      const [library, { rows, total }] = await Promise.all([
        // As the caller may see it (a library whose every series is hidden from them is a 404).
        services.libraries.get(viewer.user, params.id),
        services.series.list(
          viewer.user,
          { libraryId: params.id, q: q || undefined },
          { offset: (pageNumber - 1) * GRID_PAGE_SIZE, limit: GRID_PAGE_SIZE },
          parseSort(sort, SERIES_SORTS),
        ),
      ]);
      const path = `/libraries/${library.id}`;
      const nextUrl = pageNumber * GRID_PAGE_SIZE < total ? urlWith(path, { q, sort, page: pageNumber + 1 }) : null;
      const data = { title: library.name, viewer, library, rows, total, q, sort, sortOptions: SORT_OPTIONS, page: pageNumber, nextUrl };
      if (wantsFragment(request)) return htmlResponse(renderTemplate("partials/series-grid-page", { ...data, fragment: true }));
      return page("pages/library", data);
    },
    {
      page: "user",
      params: IdParams,
      query: t.Object({
        q: t.Optional(t.String({ maxLength: 200 })),
        sort: t.Optional(t.String({ maxLength: 40 })),
        page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
      }),
    },
  );
}
