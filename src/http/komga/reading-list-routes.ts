/**
 * Komga's collections and read lists (issue 33), as Komga 1.x serves them
 * (gotson/komga SeriesCollectionController.kt, ReadListController.kt): Spring pages of
 * CollectionDto / ReadListDto, one list, its thumbnail (its first visible series' or book's),
 * its series or books in order, a read list's next and previous book and the Mihon tracker's
 * read-progress/tachiyomi (v1, by position), the lists holding a series or a book, and
 * create / change / delete. Everything goes through src/library/reading-lists.ts, so sharing
 * tags cut what each caller sees exactly as on the REST API; `filtered` says a list holds
 * items hidden from the caller.
 */
import { Elysia, t } from "elysia";
import type { ListKind, ReadingListRecord } from "../../db";
import { notFound } from "../../errors";
import type { Caller } from "../../library/books";
import { MAX_LIST_ITEMS } from "../../library/reading-lists";
import type { Services } from "../../services";
import { imageFileResponse } from "../conditional";
import { IdParams, Uuid } from "../params";
import { komgaAuth } from "./auth";
import { holdsProgress, instant } from "./dto";
import { KomgaPresenter } from "./presenter";
import { pageableOf, queryOf, springPage, UNPAGED_LIMIT, windowOf } from "./spring-page";

/** The caller of a list write (its authority was checked by the `komga` option). */
type ListWriter = { user: Caller };

const detail = (summary: string) => ({ summary: `Komga: ${summary}`, tags: ["komga"] });
const Name = t.String({ minLength: 1, maxLength: 200 });
const ItemIds = t.Array(Uuid, { maxItems: MAX_LIST_ITEMS });

export function komgaReadingListRoutes(services: Services) {
  const lists = services.readingLists;
  const presenter = new KomgaPresenter(services);

  /** CollectionDto or ReadListDto: the ids of the items the caller may see, and whether some are hidden. */
  const toDto = async (caller: Caller, list: ReadingListRecord) => {
    const { ids, filtered } = await lists.itemsOf(caller, list.kind, list.id);
    const common = { id: list.id, name: list.name, ordered: list.ordered };
    const dates = { createdDate: instant(list.createdAt), lastModifiedDate: instant(list.updatedAt), filtered };
    return list.kind === "collection" ? { ...common, seriesIds: ids, ...dates } : { ...common, summary: list.summary ?? "", bookIds: ids, ...dates };
  };
  const dtos = (caller: Caller, rows: ReadingListRecord[]) => Promise.all(rows.map((list) => toDto(caller, list)));

  const listPage = (kind: ListKind) => async ({ caller, request }: { caller: { user: Caller }; request: Request }) => {
    const query = queryOf(request);
    const pageable = pageableOf(query);
    const { rows, total } = await lists.list(caller.user, kind, { q: query.get("search") || undefined }, windowOf(pageable));
    return springPage(await dtos(caller.user, rows), total, pageable);
  };

  /** The lists of `kind` holding the item, unpaged (Komga answers a plain array). */
  const holding = async (caller: Caller, kind: ListKind, itemId: string) =>
    dtos(caller, (await lists.list(caller, kind, { containing: itemId }, { offset: 0, limit: UNPAGED_LIMIT })).rows);

  /** The list's first visible item's thumbnail. */
  const thumbnail = (kind: ListKind) => async ({ caller, params, request }: { caller: { user: Caller }; params: { id: string }; request: Request }) => {
    await lists.get(caller.user, kind, params.id);
    const [first] = await lists.itemIds(caller.user, kind, params.id);
    if (!first) throw notFound("thumbnail");
    return imageFileResponse(request, await services.covers.thumbnail(caller.user, kind === "collection" ? "series" : "book", first));
  };

  const created =
    (kind: ListKind) =>
    async ({ caller, body }: { caller: ListWriter; body: { name: string; summary?: string; ordered?: boolean; seriesIds?: string[]; bookIds?: string[] } }) => {
      return toDto(caller.user, await lists.create(caller.user, kind, { name: body.name, summary: body.summary || null, ordered: body.ordered, itemIds: body.seriesIds ?? body.bookIds }));
    };

  const changed =
    (kind: ListKind) =>
    async ({ caller, params, body, set }: { caller: ListWriter; params: { id: string }; body: { name?: string; summary?: string; ordered?: boolean; seriesIds?: string[]; bookIds?: string[] }; set: { status?: number | string } }) => {
      const summary = body.summary === undefined ? undefined : body.summary || null;
      await lists.update(caller.user, kind, params.id, { name: body.name, summary, ordered: body.ordered, itemIds: body.seriesIds ?? body.bookIds });
      set.status = 204;
    };

  const deleted = (kind: ListKind) => async ({ caller, params, set }: { caller: ListWriter; params: { id: string }; set: { status?: number | string } }) => {
    await lists.delete(caller.user, kind, params.id);
    set.status = 204;
  };

  /** The read list's books the caller sees that Mihon's tracker counts (holdsProgress), in order: its positions are among these. */
  const trackedBooks = async (caller: Caller, id: string) => (await lists.books(caller, id, { offset: 0, limit: MAX_LIST_ITEMS })).rows.filter(holdsProgress);

  return new Elysia({ name: "komga-reading-list-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/collections", listPage("collection"), { komga: true, detail: detail("collections (search; Spring paging)") })
    .post("/api/v1/collections", created("collection"), {
      komga: true,
      body: t.Object({ name: Name, ordered: t.Optional(t.Boolean()), seriesIds: ItemIds }),
      detail: detail("create a collection (an admin's is shared, a user's their own)"),
    })
    .get("/api/v1/collections/:id", async ({ caller, params }) => toDto(caller.user, await lists.get(caller.user, "collection", params.id)), {
      komga: true,
      params: IdParams,
      detail: detail("one collection"),
    })
    .patch("/api/v1/collections/:id", changed("collection"), {
      komga: true,
      params: IdParams,
      body: t.Object({ name: t.Optional(Name), ordered: t.Optional(t.Boolean()), seriesIds: t.Optional(ItemIds) }),
      detail: detail("change a collection (204)"),
    })
    .delete("/api/v1/collections/:id", deleted("collection"), { komga: true, params: IdParams, detail: detail("delete a collection (204)") })
    .get("/api/v1/collections/:id/thumbnail", thumbnail("collection"), { komga: true, params: IdParams, detail: detail("a collection's thumbnail: its first series'") })
    .get(
      "/api/v1/collections/:id/series",
      async ({ caller, params, request }) => {
        const pageable = pageableOf(queryOf(request));
        const { rows, total } = await lists.series(caller.user, params.id, windowOf(pageable));
        return springPage(await presenter.series(caller.user, rows), total, pageable);
      },
      { komga: true, params: IdParams, detail: detail("a collection's series in its order (Spring paging)") },
    )
    .get("/api/v1/series/:id/collections", async ({ caller, params }) => {
      await services.series.get(caller.user, params.id);
      return holding(caller.user, "collection", params.id);
    }, { komga: true, params: IdParams, detail: detail("the collections holding the series") })
    .get("/api/v1/readlists", listPage("readlist"), { komga: true, detail: detail("read lists (search; Spring paging)") })
    .post("/api/v1/readlists", created("readlist"), {
      komga: true,
      body: t.Object({ name: Name, summary: t.Optional(t.String({ maxLength: 5000 })), ordered: t.Optional(t.Boolean()), bookIds: ItemIds }),
      detail: detail("create a read list (an admin's is shared, a user's their own)"),
    })
    .get("/api/v1/readlists/:id", async ({ caller, params }) => toDto(caller.user, await lists.get(caller.user, "readlist", params.id)), {
      komga: true,
      params: IdParams,
      detail: detail("one read list"),
    })
    .patch("/api/v1/readlists/:id", changed("readlist"), {
      komga: true,
      params: IdParams,
      body: t.Object({ name: t.Optional(Name), summary: t.Optional(t.String({ maxLength: 5000 })), ordered: t.Optional(t.Boolean()), bookIds: t.Optional(ItemIds) }),
      detail: detail("change a read list (204)"),
    })
    .delete("/api/v1/readlists/:id", deleted("readlist"), { komga: true, params: IdParams, detail: detail("delete a read list (204)") })
    .get("/api/v1/readlists/:id/thumbnail", thumbnail("readlist"), { komga: true, params: IdParams, detail: detail("a read list's thumbnail: its first book's") })
    .get(
      "/api/v1/readlists/:id/books",
      async ({ caller, params, request }) => {
        const pageable = pageableOf(queryOf(request));
        const { rows, total } = await lists.books(caller.user, params.id, windowOf(pageable));
        return springPage(await presenter.books(caller.user, rows), total, pageable);
      },
      { komga: true, params: IdParams, detail: detail("a read list's books in its order (Spring paging)") },
    )
    .get(
      "/api/v1/readlists/:id/books/:bookId/:direction",
      async ({ caller, params }) => (await presenter.books(caller.user, [await lists.adjacentBook(caller.user, params.id, params.bookId, params.direction)]))[0],
      {
        komga: true,
        params: t.Object({ id: Uuid, bookId: Uuid, direction: t.Union([t.Literal("next"), t.Literal("previous")]) }),
        detail: detail("the next or previous book of a read list the caller may see; 404 at either end"),
      },
    )
    .get(
      "/api/v1/readlists/:id/read-progress/tachiyomi",
      async ({ caller, params }) => tachiyomiListProgress(await trackedBooks(caller.user, params.id)),
      { komga: true, params: IdParams, detail: detail("the Mihon tracker's progress through a read list") },
    )
    .put(
      "/api/v1/readlists/:id/read-progress/tachiyomi",
      async ({ caller, params, body, set }) => {
        const books = await trackedBooks(caller.user, params.id);
        await services.progress.markRead(caller.user, books.slice(0, body.lastBookRead).filter((book) => !book.progress?.completed), true);
        set.status = 204;
      },
      {
        komga: "progress",
        params: IdParams,
        body: t.Object({ lastBookRead: t.Integer({ minimum: 0 }) }),
        detail: detail("marks the read list's first books, up to this position, as read (Mihon tracker)"),
      },
    )
    .get("/api/v1/books/:id/readlists", async ({ caller, params }) => {
      await services.books.get(caller.user, params.id);
      return holding(caller.user, "readlist", params.id);
    }, { komga: true, params: IdParams, detail: detail("the read lists holding the book") });
}

/** Komga's v1 tachiyomi progress of a read list: counts, and how many books are read without a gap from the start. */
function tachiyomiListProgress(books: { progress: { completed: boolean } | null }[]) {
  const read = books.filter((book) => book.progress?.completed).length;
  const inProgress = books.filter((book) => book.progress && !book.progress.completed).length;
  const firstUnread = books.findIndex((book) => !book.progress?.completed);
  return {
    booksCount: books.length,
    booksReadCount: read,
    booksUnreadCount: books.length - read - inProgress,
    booksInProgressCount: inProgress,
    lastReadContinuousIndex: firstUnread < 0 ? books.length : firstUnread,
  };
}
