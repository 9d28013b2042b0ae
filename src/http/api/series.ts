/** Series: lists (search, sort), one series, admin edits (locked against scans), its books in reading order. */
import { Elysia, t } from "elysia";
import type { SeriesSort } from "../../db";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageRequest, paginated, pagingQuery } from "../paging";
import { parseSort, sortQuery } from "../sorting";
import { bookDtoFor } from "./book-dto";
import { toSeriesDto } from "./series-dto";
import { IdParams, ReadingDirectionSchema } from "../params";
import { answers, BookDtoSchema, Paginated, SeriesDtoSchema } from "./schemas";
import { SERIES_STATUSES } from "../../db/schema/types";

const Text = (maxLength: number) => t.Union([t.String({ maxLength }), t.Null()]);
const ValueList = t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 });
/** An http or https address, the only links a series keeps (the web page renders them as links). */
const WEB_ADDRESS = "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$";
/** A BCP 47 language tag (en, pt-BR, zh-Hant). */
const LANGUAGE_TAG = "^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$";
const SERIES_SORTS: readonly SeriesSort[] = ["name", "createdAt", "updatedAt", "year"];

/** What an admin may change of a series (the web's edit page validates its form against it too). */
export const SeriesEditBody = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 500 })),
    nameSort: t.Optional(t.String({ minLength: 1, maxLength: 500 })),
    summary: t.Optional(Text(20_000)),
    publisher: t.Optional(Text(500)),
    year: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: 9999 }), t.Null()])),
    readingDirection: t.Optional(t.Union([ReadingDirectionSchema, t.Null()])),
    genres: t.Optional(ValueList),
    tags: t.Optional(ValueList),
    authors: t.Optional(t.Array(t.Object({ name: t.String({ minLength: 1, maxLength: 500 }), role: t.String({ minLength: 1, maxLength: 100 }) }), { maxItems: 500 })),
    ageRating: t.Optional(t.Union([t.Integer({ minimum: 0, maximum: 99 }), t.Null()])),
    language: t.Optional(t.Union([t.String({ pattern: LANGUAGE_TAG, maxLength: 35 }), t.Null()])),
    status: t.Optional(t.Union([...SERIES_STATUSES.map((status) => t.Literal(status)), t.Null()])),
    links: t.Optional(
      t.Array(t.Object({ label: t.String({ minLength: 1, maxLength: 200 }), url: t.String({ pattern: WEB_ADDRESS, maxLength: 2000, error: "a link's url is an http or https address" }) }), {
        maxItems: 50,
      }),
    ),
  });

export function seriesRoutes(services: Services) {
  const { series } = services;
  return new Elysia({ name: "series-routes", prefix: "/api/v1/series" })
    .use(authPlugin(services))
    .get(
      "",
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
        const sort = parseSort(query.sort, SERIES_SORTS);
        const { rows, total } = await series.list(
          caller.user,
          { libraryId: query.libraryId, q: query.q || undefined },
          { offset: page.offset, limit: page.pageSize },
          sort,
        );
        return paginated(request, services.config.application, page, total, rows.map(toSeriesDto));
      },
      {
        auth: "user",
        query: t.Composite([
          pagingQuery,
          sortQuery,
          t.Object({ libraryId: t.Optional(t.String({ format: "uuid" })), q: t.Optional(t.String({ maxLength: 200 })) }),
        ]),
        response: answers({ 200: Paginated(SeriesDtoSchema) }),
        detail: { summary: "List series (sort: name, createdAt, updatedAt, year)", tags: ["series"] },
      },
    )
    .get("/:id", async ({ caller, params }) => toSeriesDto(await series.get(caller.user, params.id)), {
      auth: "user",
      params: IdParams,
      response: answers({ 200: SeriesDtoSchema }, 404),
      detail: { summary: "Read a series", tags: ["series"] },
    })
    .patch("/:id", async ({ caller, params, body }) => toSeriesDto(await series.edit(caller.user, params.id, body)), {
      auth: "admin",
      params: IdParams,
      body: SeriesEditBody,
      response: answers({ 200: SeriesDtoSchema }, 404),
      detail: { summary: "Change series fields; they are locked against scans", tags: ["series"] },
    })
    .get(
      "/:id/books",
      async ({ caller, params, query, request }) => {
        const page = pageRequest(query);
        const { rows, total } = await series.books(caller.user, params.id, { offset: page.offset, limit: page.pageSize });
        return paginated(request, services.config.application, page, total, rows.map(bookDtoFor(services.access, caller.user)));
      },
      {
        auth: "user",
        params: IdParams,
        query: pagingQuery,
        response: answers({ 200: Paginated(BookDtoSchema) }, 404),
        detail: { summary: "The series' books by number, then title in natural order", tags: ["series"] },
      },
    );
}
