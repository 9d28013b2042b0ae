/**
 * Collections (of series), read lists (of books) and want-to-read (issue 33). Both kinds of list
 * have the same routes, built once by `listRoutes`: paged lists, one list, create, change
 * (fields and the complete order), delete, the list's items (paged, in order), add items,
 * remove one. Read lists add the next and previous book. What a caller sees inside a list is cut
 * by their sharing tags (src/library/reading-lists.ts).
 */
import { Elysia, t } from "elysia";
import type { ListKind, ReadingListRecord } from "../../db";
import type { Caller } from "../../library/books";
import { MAX_LIST_ITEMS, MAX_LIST_NAME, type ReadingListService } from "../../library/reading-lists";
import { MAX_CBL_BYTES } from "../../library/comicrack-list";
import { DomainError } from "../../errors";
import { readBodyAtMost } from "../request-body";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageRequest, paginated, pagingQuery } from "../paging";
import { IdParams, Uuid } from "../params";
import { bookDtoFor } from "./book-dto";
import { toSeriesDto } from "./series-dto";
import { answers, BookDtoSchema, CollectionDtoSchema, NoContent, Paginated, ReadListDtoSchema, ReadListImportSchema, SeriesDtoSchema } from "./schemas";

const Name = t.String({ minLength: 1, maxLength: MAX_LIST_NAME });
const Summary = t.Nullable(t.String({ maxLength: 5000 }));
const ItemIds = t.Array(Uuid, { maxItems: MAX_LIST_ITEMS });

interface KindRoutes {
  kind: ListKind;
  /** The list's answer schema, and its items'. */
  dtoSchema: typeof CollectionDtoSchema | typeof ReadListDtoSchema;
  itemSchema: typeof SeriesDtoSchema | typeof BookDtoSchema;
  path: string;
  /** The item ids' field in bodies and DTOs, and the items' path segment. */
  itemsField: "seriesIds" | "bookIds";
  itemsPath: "series" | "books";
  tag: string;
  noun: string;
}

const COLLECTIONS: KindRoutes = {
  kind: "collection",
  dtoSchema: CollectionDtoSchema,
  itemSchema: SeriesDtoSchema,
  path: "/api/v1/collections",
  itemsField: "seriesIds",
  itemsPath: "series",
  tag: "collections",
  noun: "collection",
};
const READ_LISTS: KindRoutes = {
  kind: "readlist",
  dtoSchema: ReadListDtoSchema,
  itemSchema: BookDtoSchema,
  path: "/api/v1/readlists",
  itemsField: "bookIds",
  itemsPath: "books",
  tag: "readlists",
  noun: "read list",
};

export function toReadingListDto(list: ReadingListRecord, caller: Caller, lists: ReadingListService) {
  return {
    id: list.id,
    name: list.name,
    summary: list.summary,
    ordered: list.ordered,
    /** Shared with everyone (made by an admin); else the caller's own. */
    shared: list.ownerId === null,
    /** Whether the caller may change it. */
    editable: lists.canEdit(caller, list),
    [list.kind === "collection" ? "seriesCount" : "bookCount"]: list.itemCount,
    createdAt: list.createdAt.toISOString(),
    updatedAt: list.updatedAt.toISOString(),
  };
}

export function readingListRoutes(services: Services) {
  const lists = services.readingLists;
  return new Elysia({ name: "reading-list-routes" })
    .use(authPlugin(services))
    .use(listRoutes(services, COLLECTIONS))
    .use(listRoutes(services, READ_LISTS))
    .get(
      "/api/v1/readlists/:id/books/:bookId/:direction",
      async ({ caller, params }) => bookDtoFor(services.access, caller.user)(await lists.adjacentBook(caller.user, params.id, params.bookId, params.direction)),
      {
        auth: "user",
        params: t.Object({ id: Uuid, bookId: Uuid, direction: t.Union([t.Literal("next"), t.Literal("previous")]) }),
        response: answers({ 200: BookDtoSchema }, 404),
        detail: { summary: "The next or previous book of a read list that the caller may see; 404 at either end", tags: ["readlists"] },
      },
    )
    .post(
      "/api/v1/readlists/import",
      async ({ caller, request, set }) => {
        const bytes = await readBodyAtMost(request, MAX_CBL_BYTES, () => new DomainError("PayloadTooLarge", `a reading list file is at most ${MAX_CBL_BYTES} bytes`));
        const { readList, unmatched } = await services.readListImporter.importComicRack(caller.user, bytes);
        set.status = 201;
        return { readList: toReadingListDto(readList, caller.user, lists), unmatched };
      },
      {
        auth: "user",
        parse: "none",
        response: answers({ 201: ReadListImportSchema }, 409, 413, 422),
        detail: {
          summary: "Create a read list from a ComicRack .cbl file (the body); entries matching no book are listed in `unmatched`",
          tags: ["readlists"],
        },
      },
    )
    .get(
      "/api/v1/want-to-read",
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
        const { rows, total } = await lists.wantToRead(caller.user, { offset: page.offset, limit: page.pageSize });
        return paginated(request, services.config.application, page, total, rows.map(toSeriesDto));
      },
      { auth: "user", query: pagingQuery, response: answers({ 200: Paginated(SeriesDtoSchema) }), detail: { summary: "The caller's want-to-read series, by name (paged)", tags: ["want-to-read"] } },
    )
    .put(
      "/api/v1/want-to-read/:id",
      async ({ caller, params, set }) => {
        await lists.addWantToRead(caller.user, params.id);
        set.status = 204;
      },
      { auth: "user", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Add a series to the caller's want-to-read", tags: ["want-to-read"] } },
    )
    .delete(
      "/api/v1/want-to-read/:id",
      async ({ caller, params, set }) => {
        await lists.removeWantToRead(caller.user, params.id);
        set.status = 204;
      },
      { auth: "user", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Remove a series from the caller's want-to-read", tags: ["want-to-read"] } },
    );
}

function listRoutes(services: Services, routes: KindRoutes) {
  const lists = services.readingLists;
  const { kind, path, itemsField, itemsPath, tag, noun } = routes;
  const tags = [tag];
  const dto = (caller: Caller) => (list: ReadingListRecord) => toReadingListDto(list, caller, lists);
  return new Elysia({ name: `${tag}-routes` })
    .use(authPlugin(services))
    .get(
      path,
      async ({ caller, query, request }) => {
        const page = pageRequest(query);
        const { rows, total } = await lists.list(caller.user, kind, { q: query.q || undefined }, { offset: page.offset, limit: page.pageSize });
        return paginated(request, services.config.application, page, total, rows.map(dto(caller.user)));
      },
      {
        auth: "user",
        query: t.Composite([pagingQuery, t.Object({ q: t.Optional(t.String({ maxLength: 200 })) })]),
        response: answers({ 200: Paginated(routes.dtoSchema) }),
        detail: { summary: `The shared ${noun}s and the caller's own, by name (paged)`, tags },
      },
    )
    .post(
      path,
      async ({ caller, body, set }) => {
        const created = await lists.create(caller.user, kind, { ...body, itemIds: itemsOf(body, itemsField) });
        set.status = 201;
        return dto(caller.user)(created);
      },
      {
        auth: "user",
        body: t.Object({
          name: Name,
          summary: t.Optional(Summary),
          ordered: t.Optional(t.Boolean()),
          shared: t.Optional(t.Boolean({ description: "shared with everyone: admins only (their default); a user's lists are their own" })),
          [itemsField]: t.Optional(ItemIds),
        }),
        response: answers({ 201: routes.dtoSchema }, 403, 409, 422),
        detail: { summary: `Create a ${noun}`, tags },
      },
    )
    .get(`${path}/:id`, async ({ caller, params }) => dto(caller.user)(await lists.get(caller.user, kind, params.id)), {
      auth: "user",
      params: IdParams,
      response: answers({ 200: routes.dtoSchema }, 404),
      detail: { summary: `Read a ${noun}`, tags },
    })
    .patch(
      `${path}/:id`,
      async ({ caller, params, body }) => dto(caller.user)(await lists.update(caller.user, kind, params.id, { ...body, itemIds: itemsOf(body, itemsField) })),
      {
        auth: "user",
        params: IdParams,
        body: t.Object({
          name: t.Optional(Name),
          summary: t.Optional(Summary),
          ordered: t.Optional(t.Boolean()),
          [itemsField]: t.Optional(t.Array(Uuid, { maxItems: MAX_LIST_ITEMS, description: "the complete new order of the items the caller sees" })),
        }),
        response: answers({ 200: routes.dtoSchema }, 403, 404, 409, 422),
        detail: { summary: `Change a ${noun}: name, summary, ordered, the order of its items`, tags },
      },
    )
    .delete(
      `${path}/:id`,
      async ({ caller, params, set }) => {
        await lists.delete(caller.user, kind, params.id);
        set.status = 204;
      },
      { auth: "user", params: IdParams, response: answers({ 204: NoContent }, 403, 404), detail: { summary: `Delete a ${noun}`, tags } },
    )
    .get(
      `${path}/:id/${itemsPath}`,
      async ({ caller, params, query, request }) => {
        const page = pageRequest(query);
        const window = { offset: page.offset, limit: page.pageSize };
        if (kind === "collection") {
          const { rows, total } = await lists.series(caller.user, params.id, window);
          return paginated(request, services.config.application, page, total, rows.map(toSeriesDto));
        }
        const { rows, total } = await lists.books(caller.user, params.id, window);
        return paginated(request, services.config.application, page, total, rows.map(bookDtoFor(services.access, caller.user)));
      },
      { auth: "user", params: IdParams, query: pagingQuery, response: answers({ 200: Paginated(routes.itemSchema) }, 404), detail: { summary: `The ${noun}'s ${itemsPath} the caller may see, in its order (paged)`, tags } },
    )
    .post(
      `${path}/:id/${itemsPath}`,
      async ({ caller, params, body }) => dto(caller.user)(await lists.addItems(caller.user, kind, params.id, itemsOf(body, itemsField) ?? [])),
      {
        auth: "user",
        params: IdParams,
        body: t.Object({ [itemsField]: ItemIds }),
        response: answers({ 200: routes.dtoSchema }, 403, 404, 422),
        detail: { summary: `Add ${itemsPath} after the ${noun}'s last one`, tags },
      },
    )
    .delete(
      `${path}/:id/${itemsPath}/:itemId`,
      async ({ caller, params, set }) => {
        await lists.removeItem(caller.user, kind, params.id, params.itemId);
        set.status = 204;
      },
      { auth: "user", params: t.Object({ id: Uuid, itemId: Uuid }), response: answers({ 204: NoContent }, 403, 404), detail: { summary: `Remove one of the ${noun}'s ${itemsPath}`, tags } },
    );
}

/** The item ids of a body (the field's name depends on the kind, so TypeScript cannot narrow it; the schema checked it). */
function itemsOf(body: Record<string, unknown>, field: KindRoutes["itemsField"]): string[] | undefined {
  return body[field] as string[] | undefined;
}
