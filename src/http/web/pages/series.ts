/**
 * GET /series/:id: the series' metadata (with what its books say together: genres, tags,
 * authors by role) and its books in reading order, as a grid of covers or (`view=list`) a list
 * with each one's read state, filtered like the series grid (../catalogue-filters.ts, in the
 * URL); more load as the page scrolls. POST /series/:id/read-state marks every book of the
 * series as read or unread.
 */
import { Elysia, t } from "elysia";
import type { ReaderSettings, ReadingDirection } from "../../../db";
import type { SeriesLink, SeriesStatus } from "../../../db/schema/types";
import type { Services } from "../../../services";
import { IdParams } from "../../params";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { AGE_OPTIONS, bookFilterOf, FILTER_QUERY, filterParams, filterValues, isFiltered, STATUS_OPTIONS } from "../catalogue-filters";
import { htmlResponse, page, renderTemplate, urlWith, wantsFragment } from "../views";

const BOOK_PAGE_SIZE = 100;
/** Every book of a series, for marking them all (a series holds far fewer). */
const WHOLE_SERIES = { offset: 0, limit: 100_000 };

const VIEWS = { grid: "partials/book-grid-page", list: "partials/book-rows-page" } as const;

/** The series' authors grouped by role ("writer": [...], ...), roles in first-seen order. */
function authorsByRole(authors: { name: string; role: string }[]): { role: string; names: string[] }[] {
  const byRole = new Map<string, string[]>();
  for (const author of authors) {
    const role = author.role || "author";
    byRole.set(role, [...(byRole.get(role) ?? []), author.name]);
  }
  return [...byRole].map(([role, names]) => ({ role, names }));
}

/** The messages of the series' statuses, as the edit form and the series page name them. */
export const STATUS_MESSAGES: Record<SeriesStatus, string> = { ongoing: "status.ongoing", ended: "status.ended", abandoned: "status.abandoned", hiatus: "status.hiatus" };

/**
 * The links shown: http and https addresses only (the API accepts no other, this holds it for
 * any row however written), so a link can never run script or open another scheme.
 */
function webLinks(links: readonly SeriesLink[]): SeriesLink[] {
  return links.filter((link) => {
    try {
      return ["http:", "https:"].includes(new URL(link.url).protocol);
    } catch {
      return false;
    }
  });
}

export const DIRECTION_MESSAGES: Record<ReadingDirection, string> = { ltr: "direction.ltr", rtl: "direction.rtl", ttb: "direction.ttb", webtoon: "direction.webtoon" };

/** The comic reader's modes, as the directions they read in (static/js/reader/layout.js). */
const DIRECTION_OF_MODE: Record<NonNullable<ReaderSettings["mode"]>, ReadingDirection> = { ltr: "ltr", rtl: "rtl", vertical: "ttb", webtoon: "webtoon" };

export function seriesPage(services: Services, guard: WebPageGuard) {
  /** For admins: every tag, and which of them the series carries. */
  async function sharingTagChoices(seriesId: string) {
    const [all, carried] = await Promise.all([services.sharingTags.list(0, 1000), services.sharingTags.tagsOfSeries(seriesId)]);
    const carriedIds = new Set(carried.sharingTags.map((tag) => tag.id));
    return all.rows.map((tag) => ({ id: tag.id, name: tag.name, checked: carriedIds.has(tag.id) }));
  }

  return new Elysia({ name: "web-series-page" })
    .use(guard)
    .get(
      "/series/:id",
      async ({ viewer, params, query, request }) => {
        const pageNumber = query.page ?? 1;
        const view = query.view ?? "grid";
        const filters = filterValues(query);
        const [series, { rows, total }] = await Promise.all([
          services.series.get(viewer.user, params.id),
          services.series.books(viewer.user, params.id, { offset: (pageNumber - 1) * BOOK_PAGE_SIZE, limit: BOOK_PAGE_SIZE }, bookFilterOf(filters, viewer.user.id)),
        ]);
        const path = `/series/${series.id}`;
        const state = { ...filterParams(filters), view: view === "grid" ? null : view };
        const nextUrl = pageNumber * BOOK_PAGE_SIZE < total ? urlWith(path, { ...state, page: pageNumber + 1 }) : null;
        const filtered = isFiltered(filters);
        const viewUrls = { grid: urlWith(path, { ...state, view: null }), list: urlWith(path, { ...state, view: "list" }) };
        const data = { title: series.name, viewer, series, rows, total, page: pageNumber, nextUrl, filtered, view, viewUrls };
        if (wantsFragment(request)) {
          // A changed filter (page 1) puts its URL in the address bar without the blank fields the form sent.
          const pushUrl: Record<string, string> = pageNumber === 1 ? { "hx-push-url": urlWith(path, state) } : {};
          return htmlResponse(renderTemplate(pageNumber === 1 ? "partials/series-books" : VIEWS[view], data), 200, pushUrl);
        }
        const firstUnread = (await services.series.books(viewer.user, series.id, { offset: 0, limit: 1 }, bookFilterOf(filterValues({ status: ["unread", "in-progress"] }), viewer.user.id))).rows[0];
        const { t } = viewer.translator;
        const directionLabel = series.readingDirection ? t(DIRECTION_MESSAGES[series.readingDirection]) : null;
        // The reader opens it in the mode this person chose for the series, else in the series' direction.
        const chosenMode = (await services.readerSettings.forSeries(viewer.user, series.id)).series.mode;
        const yourDirectionLabel = chosenMode ? t(DIRECTION_MESSAGES[DIRECTION_OF_MODE[chosenMode]]) : null;
        const sharing = viewer.user.role === "admin" ? await sharingTagChoices(series.id) : null;
        const notice = query.notice === "tags-saved" ? t("series.notice.tagsSaved") : undefined;
        // The filters here pick books: the values they offer are the books'.
        const [{ combined, facets }, wanted] = await Promise.all([
          services.catalogueMetadata.ofSeriesBooks(viewer.user, series.id),
          services.readingLists.inWantToRead(viewer.user, series.id),
        ]);
        return page("pages/series", {
          ...data,
          firstUnread,
          directionLabel,
          yourDirectionLabel,
          sharing,
          notice,
          wanted,
          authors: authorsByRole(series.authors),
          statusLabel: series.status ? t(STATUS_MESSAGES[series.status]) : null,
          links: webLinks(series.links),
          summary: series.summary ?? combined.summary ?? null,
          filters,
          facets,
          statusOptions: STATUS_OPTIONS,
          ageOptions: AGE_OPTIONS,
          sharingTags: [],
          clearUrl: urlWith(path, { view: state.view }),
        });
      },
      {
        page: "user",
        params: IdParams,
        query: t.Object({
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
          notice: t.Optional(t.String({ maxLength: 40 })),
          view: t.Optional(t.Union([t.Literal("grid"), t.Literal("list")])),
          ...FILTER_QUERY,
        }),
      },
    )
    .post(
      "/series/:id/read-state",
      async ({ viewer, params, body, request }) => {
        const { rows } = await services.series.books(viewer.user, params.id, WHOLE_SERIES);
        await services.progress.markRead(viewer.user, rows, body.read === "true");
        return redirectTo(request, `/series/${params.id}`);
      },
      { page: "reading", params: IdParams, body: t.Object({ read: t.Union([t.Literal("true"), t.Literal("false")]), _csrf: t.Optional(t.String()) }) },
    );
}
