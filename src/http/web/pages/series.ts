/**
 * GET /series/:id: the series' metadata and its books in reading order with each one's read
 * state (more rows load as the list scrolls); POST /series/:id/read-state marks every book of
 * the series as read or unread.
 */
import { Elysia, t } from "elysia";
import type { ReadingDirection } from "../../../db";
import type { Services } from "../../../services";
import { IdParams } from "../../params";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { htmlResponse, page, renderTemplate, urlWith, wantsFragment } from "../views";

const BOOK_PAGE_SIZE = 100;
/** Every book of a series, for marking them all (a series holds far fewer). */
const WHOLE_SERIES = { offset: 0, limit: 100_000 };

export const DIRECTION_LABELS: Record<ReadingDirection, string> = {
  ltr: "Left to right",
  rtl: "Right to left (manga)",
  ttb: "Top to bottom",
  webtoon: "Webtoon (vertical strip)",
};

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
        const [series, { rows, total }] = await Promise.all([
          services.series.get(viewer.user, params.id),
          services.series.books(viewer.user, params.id, { offset: (pageNumber - 1) * BOOK_PAGE_SIZE, limit: BOOK_PAGE_SIZE }),
        ]);
        const nextUrl = pageNumber * BOOK_PAGE_SIZE < total ? urlWith(`/series/${series.id}`, { page: pageNumber + 1 }) : null;
        const data = { title: series.name, viewer, series, rows, nextUrl };
        if (wantsFragment(request)) return htmlResponse(renderTemplate("partials/book-rows-page", data));
        const firstUnread = rows.find((book) => !book.progress?.completed);
        const directionLabel = series.readingDirection ? DIRECTION_LABELS[series.readingDirection] : null;
        const sharing = viewer.user.role === "admin" ? await sharingTagChoices(series.id) : null;
        const notice = query.notice === "tags-saved" ? "The sharing tags are saved." : undefined;
        return page("pages/series", { ...data, firstUnread, directionLabel, sharing, notice });
      },
      {
        page: "user",
        params: IdParams,
        query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })), notice: t.Optional(t.String({ maxLength: 40 })) }),
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
