/**
 * Unlocking edited fields (issue 32): DELETE /api/v1/series/{id}/locked-fields/{field} and
 * DELETE /api/v1/books/{id}/locked-fields/{field} take one field out of the record's
 * `lockedFields`, so the next scan that reads the files writes it again. The fields are those
 * the PATCH routes take (their body schemas are the one list), through the same service methods
 * the web's Unlock buttons use. Unlocking a field that is not locked changes nothing (DELETE is
 * idempotent); the answer is the record as the PATCH routes answer it.
 */
import { Elysia, t } from "elysia";
import type { TObject } from "@sinclair/typebox";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { Uuid } from "../params";
import { bookDtoFor } from "./book-dto";
import { BookEditBody } from "./books";
import { answers, BookDtoSchema, SeriesDtoSchema } from "./schemas";
import { SeriesEditBody } from "./series";
import { toSeriesDto } from "./series-dto";

/** `{id, field}` path parameters; `field` is one of the edit body's properties. */
const lockParams = (editBody: TObject) =>
  t.Object({
    id: Uuid,
    field: t.UnionEnum(Object.keys(editBody.properties) as [string, ...string[]], { description: "a field the PATCH route takes" }),
  });

export function lockedFieldRoutes(services: Services) {
  return new Elysia({ name: "locked-field-routes", prefix: "/api/v1" })
    .use(authPlugin(services))
    .delete(
      "/series/:id/locked-fields/:field",
      async ({ caller, params }) => toSeriesDto(await services.series.unlock(caller.user, params.id, [params.field as keyof typeof SeriesEditBody.static])),
      {
        auth: "admin",
        params: lockParams(SeriesEditBody),
        response: answers({ 200: SeriesDtoSchema }, 404),
        detail: { summary: "Unlock an edited series field: the next scan that settles the series writes it again", tags: ["series"] },
      },
    )
    .delete(
      "/books/:id/locked-fields/:field",
      async ({ caller, params }) =>
        bookDtoFor(services.access, caller.user)(await services.books.unlock(caller.user, params.id, [params.field as keyof typeof BookEditBody.static])),
      {
        auth: "admin",
        params: lockParams(BookEditBody),
        response: answers({ 200: BookDtoSchema }, 404),
        detail: { summary: "Unlock an edited book field: the next scan that reads the book's file writes it again", tags: ["books"] },
      },
    );
}
