/** Books: lists, one book, analysis errors grouped by type, re-analysis, permanent deletion. */
import { Elysia, t } from "elysia";
import type { BookSort } from "../../db";
import { BOOK_ERROR_TYPES } from "../../formats/contract";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageRequest, paginated, pagingQuery } from "../paging";
import { parseSort, sortQuery } from "../sorting";
import { bookDtoFor, toBookDto, toBookErrorDto } from "./book-dto";
import { IdParams } from "../params";
import { SeriesEditBody } from "./series";
import { answers, BookDtoSchema, ErrorGroupDtoSchema, NoContent, Paginated, Shape, Integer } from "./schemas";

const BooleanText = t.Union([t.Literal("true"), t.Literal("false")]);
const BOOK_SORTS: readonly BookSort[] = ["series", "title", "createdAt", "number"];
const Count = t.Union([t.Integer({ minimum: 0, maximum: 1_000_000 }), t.Null()]);

/** What an admin may change of a book (the web's edit page validates its form against it too). */
export const BookEditBody = t.Object(
  {
    title: t.Optional(t.String({ minLength: 1, maxLength: 1000 })),
    titleSort: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 1000 }), t.Null()])),
    number: t.Optional(Count),
    volume: t.Optional(Count),
    summary: t.Optional(t.Union([t.String({ maxLength: 20_000 }), t.Null()])),
    year: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: 9999 }), t.Null()])),
    // As a series' (one definition of these lists).
    genres: SeriesEditBody.properties.genres,
    tags: SeriesEditBody.properties.tags,
    authors: SeriesEditBody.properties.authors,
  });

const BookErrorGroupsSchema = Shape({ totalBooksWithErrors: Integer(), groups: t.Array(ErrorGroupDtoSchema) });

export function bookRoutes(services: Services) {
  const books = services.books;
  return new Elysia({ name: "book-routes", prefix: "/api/v1/books" })
    .use(authPlugin(services))
    .get(
      "",
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
        const sort = parseSort(query.sort, BOOK_SORTS);
        const { rows, total } = await books.list(
          caller.user,
          { libraryId: query.libraryId, seriesId: query.seriesId, deleted: query.deleted === "true", q: query.q || undefined },
          { offset: page.offset, limit: page.pageSize },
          sort,
        );
        return paginated(request, services.config.application, page, total, rows.map(bookDtoFor(services.access, caller.user)));
      },
      {
        auth: "user",
        query: t.Composite([
          pagingQuery,
          sortQuery,
          t.Object({
            libraryId: t.Optional(t.String({ format: "uuid" })),
            seriesId: t.Optional(t.String({ format: "uuid" })),
            deleted: t.Optional(BooleanText),
            q: t.Optional(t.String({ maxLength: 200 })),
          }),
        ]),
        response: answers({ 200: Paginated(BookDtoSchema) }),
        detail: { summary: "List books (q: title, series or author; sort: series, title, createdAt, number)", tags: ["books"] },
      },
    )
    .get(
      "/errors",
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
        const showServerPaths = services.access.seesServerInternals(caller.user);
        const result = await books.errorGroups(
          caller.user,
          { libraryId: query.libraryId, errorType: query.errorType },
          { offset: page.offset, limit: page.pageSize },
        );
        return {
          totalBooksWithErrors: result.totalBooksWithErrors,
          groups: result.groups.map((group) => ({
            errorType: group.errorType,
            label: group.label,
            count: group.count,
            books: paginated(
              request,
              services.config.application,
              page,
              group.total,
              group.books.map(({ book, errors }) => ({
                book: toBookDto(book, showServerPaths),
                errors: errors.map((error) => toBookErrorDto(error, book, showServerPaths)),
              })),
            ),
          })),
        };
      },
      {
        auth: "user",
        query: t.Composite([
          pagingQuery,
          t.Object({
            libraryId: t.Optional(t.String({ format: "uuid" })),
            errorType: t.Optional(t.Union(BOOK_ERROR_TYPES.map((type) => t.Literal(type)))),
          }),
        ]),
        response: answers({ 200: BookErrorGroupsSchema }),
        detail: { summary: "Analysis errors grouped by type", tags: ["books"] },
      },
    )
    .get("/:id", async ({ caller, params }) => bookDtoFor(services.access, caller.user)(await books.get(caller.user, params.id)), {
      auth: "user",
      params: IdParams,
      response: answers({ 200: BookDtoSchema }, 404),
      detail: { summary: "Read a book", tags: ["books"] },
    })
    .patch("/:id", async ({ caller, params, body }) => bookDtoFor(services.access, caller.user)(await books.edit(caller.user, params.id, body)), {
      auth: "admin",
      params: IdParams,
      body: BookEditBody,
      response: answers({ 200: BookDtoSchema }, 404),
      detail: { summary: "Change book fields; they are locked against scans", tags: ["books"] },
    })
    .delete(
      "/:id",
      async ({ caller, params, set }) => {
        await books.purge(caller.user, params.id);
        set.status = 204;
      },
      { auth: "admin", params: IdParams, response: answers({ 204: NoContent }, 404, 409), detail: { summary: "Permanently delete a soft-deleted book", tags: ["books"] } },
    )
    .post("/:id/analyze", async ({ caller, params }) => bookDtoFor(services.access, caller.user)(await books.reanalyze(caller.user, params.id)), {
      auth: "admin",
      params: IdParams,
      response: answers({ 200: BookDtoSchema }, 404),
      detail: { summary: "Re-analyse one book", tags: ["books"] },
    });
}
