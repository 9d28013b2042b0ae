/**
 * Komga's book resource: lists (GET, POST /list, latest, ondeck), one book, next/previous in
 * its series, pages (list and image, with `convert` and `zero_based`), thumbnail, file, and
 * read progress (PATCH with Komga's validation, DELETE).
 */
import { Elysia, t } from "elysia";
import type { BookSort, BookView } from "../../db";
import { DomainError, notFound } from "../../errors";
import type { Caller } from "../../library/books";
import { PageOutOfRange } from "../../library/pages";
import type { Services } from "../../services";
import { bookFileResponse } from "../api/book-files";
import { thumbnailHandler } from "../api/covers";
import { pageResponse } from "../page-response";
import { IdParams, PageNumberParam, Uuid } from "../params";
import { komgaAuth } from "./auth";
import { mediaProfileOf, mediaStatusOf, toKomgaPage } from "./dto";
import { bookFilterOf, bookSearchFilter, bookSortOf, criteriaFromQuery, searchRequest, type BookListFilter } from "./list-filters";
import { KomgaPresenter } from "./presenter";
import { booleanParam, type Pageable, pageableOf, queryOf, springPage, UNPAGED_LIMIT, windowOf } from "./spring-page";

// The page number as digits, turned into a number by the handler (no TypeBox Decode per request).
const PageParams = t.Object({ id: Uuid, n: PageNumberParam });
const CONVERSIONS = { jpeg: "image/jpeg", png: "image/png" } as const;

export function komgaBookRoutes(services: Services) {
  const { books, series, pages, progress } = services;
  const presenter = new KomgaPresenter(services);
  const one = async (caller: Caller, book: BookView) => (await presenter.books(caller, [book]))[0];

  /** `filter` null: the criteria can match no book. */
  const listBooks = async (caller: Caller, filter: BookListFilter | null, pageable: Pageable, defaultSort?: { field: BookSort; direction: "asc" | "desc" }) => {
    if (!filter) return springPage([], 0, pageable);
    const { rows, total } = await books.list(caller, filter, windowOf(pageable), bookSortOf(pageable.sort) ?? defaultSort);
    return springPage(await presenter.books(caller, rows), total, pageable);
  };

  /** The book next to this one in its series' reading order, or 404. */
  const neighbour = async (caller: Caller, id: string, step: 1 | -1) => {
    const book = await books.get(caller, id);
    const { rows } = await series.books(caller, book.seriesId, { offset: 0, limit: UNPAGED_LIMIT });
    const index = rows.findIndex((candidate) => candidate.id === book.id);
    const next = index < 0 ? undefined : rows[index + step];
    if (!next) throw notFound("book");
    return one(caller, next);
  };

  return new Elysia({ name: "komga-book-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/books", ({ caller, request }) => listBooks(caller.user, bookFilterOf(criteriaFromQuery(queryOf(request)), caller.user.id), pageableOf(queryOf(request))), {
      komga: true,
      detail: { summary: "Komga: books (search, library_id, read_status, media_status, tag, author, deleted; Spring paging)", tags: ["komga"] },
    })
    .post(
      "/api/v1/books/list",
      ({ caller, request, body }) => listBooks(caller.user, bookSearchFilter(body, caller.user.id), pageableOf(queryOf(request))),
      {
        komga: "reads",
        ...searchRequest,
        detail: { summary: "Komga: books matching a condition tree and full-text search", tags: ["komga"] },
      },
    )
    .get(
      "/api/v1/books/latest",
      ({ caller, request }) => listBooks(caller.user, bookFilterOf({ ...criteriaFromQuery(queryOf(request)), deleted: false }, caller.user.id), pageableOf(queryOf(request)), { field: "createdAt", direction: "desc" }),
      { komga: true, detail: { summary: "Komga: the newest books", tags: ["komga"] } },
    )
    .get(
      "/api/v1/books/ondeck",
      ({ caller, request }) =>
        listBooks(caller.user, bookFilterOf({ libraryIds: criteriaFromQuery(queryOf(request)).libraryIds, readStatuses: ["IN_PROGRESS"], deleted: false }, caller.user.id), pageableOf(queryOf(request)), {
          field: "lastRead",
          direction: "desc",
        }),
      { komga: true, detail: { summary: "Komga: books to continue (started, not finished; library_id)", tags: ["komga"] } },
    )
    .get("/api/v1/books/:id", async ({ caller, params: { id } }) => one(caller.user, await books.get(caller.user, id)), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: one book", tags: ["komga"] },
    })
    .get("/api/v1/books/:id/next", ({ caller, params: { id } }) => neighbour(caller.user, id, 1), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: the next book of the series", tags: ["komga"] },
    })
    .get("/api/v1/books/:id/previous", ({ caller, params: { id } }) => neighbour(caller.user, id, -1), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: the previous book of the series", tags: ["komga"] },
    })
    .get(
      "/api/v1/books/:id/pages",
      async ({ caller, params: { id } }) => {
        const book = await books.get(caller.user, id);
        // Komga lists pages only for analysed books.
        if (mediaStatusOf(book) !== "READY") throw new DomainError("NotFound", "the book has not been analysed successfully");
        return (await pages.list(caller.user, id)).map(toKomgaPage);
      },
      { komga: true, params: IdParams, detail: { summary: "Komga: the book's pages (from 1)", tags: ["komga"] } },
    )
    .get(
      "/api/v1/books/:id/pages/:n",
      async ({ caller, params: { id, n }, request }) => {
        const query = queryOf(request);
        const number = Number(n) + (booleanParam(query, "zero_based") ? 1 : 0);
        const convert = (query.get("convert") ?? "").toLowerCase();
        if (convert !== "" && !(convert in CONVERSIONS)) throw new DomainError("BadRequest", "convert must be jpeg or png");
        // Komga answers a page the book does not have with 400, not 404.
        const page = await pages.locate(caller.user, id, number).catch((error: unknown) => {
          throw error instanceof PageOutOfRange ? new DomainError("BadRequest", error.message) : error;
        });
        if (!convert) return pageResponse(request, pages, page);
        const format = convert as keyof typeof CONVERSIONS;
        return pageResponse(request, pages, page, { variant: `-${format}`, read: () => pages.readAs(page, [CONVERSIONS[format]], format) });
      },
      { komga: true, params: PageParams, detail: { summary: "Komga: one page's image (convert=jpeg|png, zero_based)", tags: ["komga"] } },
    )
    .get("/api/v1/books/:id/thumbnail", thumbnailHandler(services.covers, "book"), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: the book's thumbnail", tags: ["komga"] },
    })
    .get("/api/v1/books/:id/file", async ({ caller, params: { id }, request }) => bookFileResponse(request, await services.bookFiles.file(caller.user, id)), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: the book's file", tags: ["komga"] },
    })
    .patch(
      "/api/v1/books/:id/read-progress",
      async ({ caller, params: { id }, body, set }) => {
        const book = await books.get(caller.user, id);
        if (mediaProfileOf(book.fileFormat) === "EPUB" && !(await pages.imageOnly([book])).has(book.id)) {
          throw new DomainError("BadRequest", "page progress of a reflowable EPUB cannot be set through the Komga API");
        }
        if (body.completed !== true) {
          if (body.page === undefined) throw new DomainError("BadRequest", "page is required unless completed is true");
          if (body.page > book.pageCount) throw new DomainError("BadRequest", `page must be between 1 and ${book.pageCount}`);
        }
        // Komga: completed:true means the last page; otherwise completion follows the page.
        await progress.record(caller.user, book, body.completed === true ? { completed: true } : { page: body.page });
        set.status = 204;
      },
      {
        komga: "progress",
        params: IdParams,
        body: t.Object({ page: t.Optional(t.Integer({ minimum: 1 })), completed: t.Optional(t.Boolean()) }),
        detail: { summary: "Komga: record the caller's page, or completion", tags: ["komga"] },
      },
    )
    .delete(
      "/api/v1/books/:id/read-progress",
      async ({ caller, params: { id }, set }) => {
        await progress.delete(caller.user, id);
        set.status = 204;
      },
      { komga: "progress", params: IdParams, detail: { summary: "Komga: mark the book unread", tags: ["komga"] } },
    );
}
