/**
 * Komga's series resource: lists (GET with filters, POST /list with a condition tree, new,
 * updated, latest), one series, its thumbnail, its books, and the Mihon tracker's
 * read-progress/tachiyomi (v2).
 */
import { Elysia, t } from "elysia";
import type { BookView, SeriesSort } from "../../db";
import type { Caller } from "../../library/books";
import type { Services } from "../../services";
import { thumbnailHandler } from "../api/covers";
import { IdParams } from "../params";
import { komgaAuth } from "./auth";
import { holdsProgress, numberSortOf } from "./dto";
import { seriesPositions } from "./series-position";
import { bookFilterOf, bookSortOf, criteriaFromQuery, searchRequest, seriesFilterOf, seriesSearchFilter, seriesSortOf, type SeriesListFilter } from "./list-filters";
import { KomgaPresenter } from "./presenter";
import { type Pageable, pageableOf, queryOf, springPage, UNPAGED_LIMIT, windowOf } from "./spring-page";


export function komgaSeriesRoutes(services: Services) {
  const { series, books, progress } = services;
  const presenter = new KomgaPresenter(services);

  /** `filter` null: the criteria can match no series. */
  const listSeries = async (caller: Caller, filter: SeriesListFilter | null, pageable: Pageable, defaultSort?: { field: SeriesSort; direction: "asc" | "desc" }) => {
    if (!filter) return springPage([], 0, pageable);
    const { rows, total } = await series.list(caller, filter, windowOf(pageable), seriesSortOf(pageable.sort) ?? defaultSort);
    return springPage(await presenter.series(caller, rows), total, pageable);
  };

  /** The present books of a visible series that Mihon's tracker counts (holdsProgress), in reading order. */
  const trackedBooks = async (caller: Caller, seriesId: string): Promise<BookView[]> =>
    (await series.books(caller, seriesId, { offset: 0, limit: UNPAGED_LIMIT })).rows.filter(holdsProgress);

  const recentlyChanged = (field: SeriesSort) => async ({ caller, request }: { caller: { user: Caller }; request: Request }) =>
    listSeries(caller.user, seriesFilterOf(criteriaFromQuery(queryOf(request)), caller.user.id), pageableOf(queryOf(request)), { field, direction: "desc" });

  return new Elysia({ name: "komga-series-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/series", ({ caller, request }) => listSeries(caller.user, seriesFilterOf(criteriaFromQuery(queryOf(request)), caller.user.id), pageableOf(queryOf(request))), {
      komga: true,
      detail: { summary: "Komga: series (search, library_id, read_status, status, publisher, genre, tag, author; Spring paging)", tags: ["komga"] },
    })
    .post(
      "/api/v1/series/list",
      ({ caller, request, body }) => listSeries(caller.user, seriesSearchFilter(body, caller.user.id), pageableOf(queryOf(request))),
      {
        komga: "reads",
        ...searchRequest,
        detail: { summary: "Komga: series matching a condition tree and full-text search", tags: ["komga"] },
      },
    )
    .get("/api/v1/series/new", recentlyChanged("createdAt"), { komga: true, detail: { summary: "Komga: the newest series", tags: ["komga"] } })
    .get("/api/v1/series/updated", recentlyChanged("updatedAt"), { komga: true, detail: { summary: "Komga: recently updated series", tags: ["komga"] } })
    .get("/api/v1/series/latest", recentlyChanged("updatedAt"), { komga: true, detail: { summary: "Komga: latest series", tags: ["komga"] } })
    .get("/api/v1/series/:id", async ({ caller, params: { id } }) => (await presenter.series(caller.user, [await series.get(caller.user, id)]))[0], {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: one series", tags: ["komga"] },
    })
    .get("/api/v1/series/:id/thumbnail", thumbnailHandler(services.covers, "series"), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: the series' thumbnail", tags: ["komga"] },
    })
    .get(
      "/api/v1/series/:id/books",
      async ({ caller, params: { id }, request }) => {
        await series.get(caller.user, id);
        const pageable = pageableOf(queryOf(request));
        const filter = bookFilterOf({ ...criteriaFromQuery(queryOf(request)), seriesIds: [id] }, caller.user.id);
        if (!filter) return springPage([], 0, pageable);
        const sort = bookSortOf(pageable.sort) ?? { field: "numberOrPosition" as const, direction: "asc" as const };
        const { rows, total } = await books.list(caller.user, filter, windowOf(pageable), sort);
        return springPage(await presenter.books(caller.user, rows), total, pageable);
      },
      { komga: true, params: IdParams, detail: { summary: "Komga: the series' books (default sort metadata.numberSort)", tags: ["komga"] } },
    )
    .get(
      "/api/v2/series/:id/read-progress/tachiyomi",
      async ({ caller, params: { id } }) => {
        const books = await trackedBooks(caller.user, id);
        return tachiyomiProgress(books, await seriesPositions(services, books));
      },
      { komga: true, params: IdParams, detail: { summary: "Komga: the Mihon tracker's series progress", tags: ["komga"] } },
    )
    .put(
      "/api/v2/series/:id/read-progress/tachiyomi",
      async ({ caller, params: { id }, body, set }) => {
        const books = await trackedBooks(caller.user, id);
        const positions = await seriesPositions(services, books);
        const reached = books.filter((book) => numberSortOf(book, positions.get(book.id)) <= body.lastBookNumberSortRead && !book.progress?.completed);
        await progress.markRead(caller.user, reached, true);
        set.status = 204;
      },
      {
        komga: "progress",
        params: IdParams,
        body: t.Object({ lastBookNumberSortRead: t.Number() }),
        detail: { summary: "Komga: marks every book up to this number as read (Mihon tracker)", tags: ["komga"] },
      },
    );
}

/**
 * Komga's tachiyomi progress: counts, the number of the last book of the unbroken run of
 * completed books from the start (0 if none), the largest number (0 if none).
 */
function tachiyomiProgress(books: BookView[], positions: Map<string, number>) {
  const numberSort = (book: BookView) => numberSortOf(book, positions.get(book.id));
  const ordered = [...books].sort((a, b) => numberSort(a) - numberSort(b));
  const read = ordered.filter((book) => book.progress?.completed).length;
  const inProgress = ordered.filter((book) => book.progress && !book.progress.completed).length;
  const firstUnread = ordered.findIndex((book) => !book.progress?.completed);
  const lastContinuous = firstUnread === 0 ? undefined : ordered[(firstUnread < 0 ? ordered.length : firstUnread) - 1];
  return {
    booksCount: ordered.length,
    booksReadCount: read,
    booksUnreadCount: ordered.length - read - inProgress,
    booksInProgressCount: inProgress,
    lastReadContinuousNumberSort: lastContinuous ? numberSort(lastContinuous) : 0,
    maxNumberSort: ordered.length > 0 ? numberSort(ordered.at(-1)!) : 0,
  };
}
