/**
 * GET /libraries/:id: the library's series as a grid of covers, filtered by name and by the
 * catalogue filters (read status, genre, tag, publisher, language, author, years; all in the
 * URL, see ../catalogue-filters.ts) and sorted by the series list's own fields. htmx asks for
 * the next page when the last card scrolls into view (and for page 1 when a filter or the sort
 * changes): those get the grid fragment only.
 */
import { Elysia, t } from "elysia";
import type { SeriesSort } from "../../../db";
import type { Services } from "../../../services";
import { IdParams } from "../../params";
import { parseSort } from "../../sorting";
import type { WebPageGuard } from "../page-guard";
import { AGE_OPTIONS, FILTER_QUERY, filterParams, filterValues, isFiltered, seriesFilterOf, STATUS_OPTIONS } from "../catalogue-filters";
import { page, renderTemplate, htmlResponse, urlWith, wantsFragment } from "../views";

const GRID_PAGE_SIZE = 48;
const SERIES_SORTS: readonly SeriesSort[] = ["name", "createdAt", "updatedAt", "year"];

const SORT_OPTIONS = [
  { value: "name,asc", labelId: "library.sort.nameAsc" },
  { value: "name,desc", labelId: "library.sort.nameDesc" },
  { value: "createdAt,desc", labelId: "library.sort.recentlyAdded" },
  { value: "updatedAt,desc", labelId: "library.sort.recentlyUpdated" },
  { value: "year,desc", labelId: "library.sort.yearNewest" },
  { value: "year,asc", labelId: "library.sort.yearOldest" },
];

/** The sharing tags the filter offers, at most (the admin's sharing-tag page pages beyond). */
const MAX_SHARING_TAGS = 500;

export function libraryPage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-library-page" }).use(guard).get(
    "/libraries/:id",
    async ({ viewer, params, query, request }) => {
      const pageNumber = query.page ?? 1;
      const sort = SORT_OPTIONS.some((option) => option.value === query.sort) ? query.sort! : "name,asc";
      const q = query.q?.trim() ?? "";
      const admin = viewer.user.role === "admin";
      const filters = filterValues(query, admin);
      const [library, { rows, total }] = await Promise.all([
        // As the caller may see it (a library whose every series is hidden from them is a 404).
        services.libraries.get(viewer.user, params.id),
        services.series.list(
          viewer.user,
          { libraryId: params.id, q: q || undefined, ...seriesFilterOf(filters, viewer.user.id) },
          { offset: (pageNumber - 1) * GRID_PAGE_SIZE, limit: GRID_PAGE_SIZE },
          parseSort(sort, SERIES_SORTS),
        ),
      ]);
      const path = `/libraries/${library.id}`;
      const nextUrl = pageNumber * GRID_PAGE_SIZE < total ? urlWith(path, { q, sort, ...filterParams(filters), page: pageNumber + 1 }) : null;
      const filtered = q !== "" || isFiltered(filters);
      const data = { title: library.name, viewer, library, rows, total, q, filters, filtered, sort, sortOptions: SORT_OPTIONS, page: pageNumber, nextUrl };
      if (wantsFragment(request)) {
        // A changed filter (page 1) puts its URL in the address bar without the blank fields the form sent.
        const pushUrl: Record<string, string> = pageNumber === 1 ? { "hx-push-url": urlWith(path, { q, sort, ...filterParams(filters) }) } : {};
        return htmlResponse(renderTemplate("partials/series-grid-page", { ...data, fragment: true }), 200, pushUrl);
      }
      // The values the filters offer: those of the library's books the viewer can see.
      const [facets, sharingTags] = await Promise.all([
        services.catalogueMetadata.seriesFacets(viewer.user, { libraryIds: [library.id] }),
        // Admins also filter by sharing tag (every tag: there are few, and the form offers them all).
        admin ? services.sharingTags.list(0, MAX_SHARING_TAGS).then((tags) => tags.rows) : [],
      ]);
      return page("pages/library", { ...data, facets, sharingTags, statusOptions: STATUS_OPTIONS, ageOptions: AGE_OPTIONS, clearUrl: path });
    },
    {
      page: "user",
      params: IdParams,
      query: t.Object({
        q: t.Optional(t.String({ maxLength: 200 })),
        ...FILTER_QUERY,
        sort: t.Optional(t.String({ maxLength: 40 })),
        page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
      }),
    },
  );
}
