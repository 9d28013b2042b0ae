/** Books: lists, one book, analysis errors grouped by type, re-analysis, permanent deletion. */
import { Elysia, t } from "elysia";
import { BOOK_ERROR_TYPES } from "../../formats/contract";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageRequest, paginated, pagingQuery } from "../paging";
import { toBookDto, toBookErrorDto } from "./book-dto";

const IdParams = t.Object({ id: t.String({ format: "uuid" }) });
const BooleanText = t.Union([t.Literal("true"), t.Literal("false")]);

export function bookRoutes(services: Services) {
  const books = services.books;
  return new Elysia({ name: "book-routes", prefix: "/api/v1/books" })
    .use(authPlugin(services))
    .get(
      "",
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
        const { rows, total } = await books.list(
          caller.user,
          { libraryId: query.libraryId, seriesId: query.seriesId, deleted: query.deleted === "true" },
          { offset: page.offset, limit: page.pageSize },
        );
        return paginated(request, page, total, rows.map(toBookDto));
      },
      {
        auth: "user",
        query: t.Composite([
          pagingQuery,
          t.Object({
            libraryId: t.Optional(t.String({ format: "uuid" })),
            seriesId: t.Optional(t.String({ format: "uuid" })),
            deleted: t.Optional(BooleanText),
          }),
        ]),
        detail: { summary: "List books", tags: ["books"] },
      },
    )
    .get(
      "/errors",
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
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
              page,
              group.total,
              group.books.map(({ book, errors }) => ({ book: toBookDto(book), errors: errors.map(toBookErrorDto) })),
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
        detail: { summary: "Analysis errors grouped by type", tags: ["books"] },
      },
    )
    .get("/:id", async ({ caller, params }) => toBookDto(await books.get(caller.user, params.id)), {
      auth: "user",
      params: IdParams,
      detail: { summary: "Read a book", tags: ["books"] },
    })
    .delete(
      "/:id",
      async ({ caller, params, set }) => {
        await books.purge(caller.user, params.id);
        set.status = 204;
      },
      { auth: "admin", params: IdParams, detail: { summary: "Permanently delete a soft-deleted book", tags: ["books"] } },
    )
    .post("/:id/analyze", async ({ caller, params }) => toBookDto(await books.reanalyze(caller.user, params.id)), {
      auth: "admin",
      params: IdParams,
      detail: { summary: "Re-analyse one book", tags: ["books"] },
    });
}
