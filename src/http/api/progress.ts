/** The caller's own reading progress on a book. */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { toReadProgressDto } from "./book-dto";
import { IdParams } from "../params";
import { answers, NoContent, ReadProgressDtoSchema } from "./schemas";

/**
 * A Readium locator as the web reader sends it. Its parts are bounded so a stored position
 * stays small; `locations` keeps whatever keys the reader uses, other unknown keys are dropped.
 */
const Locator = t.Object(
  {
    href: t.String({ minLength: 1, maxLength: 2048 }),
    type: t.Optional(t.String({ maxLength: 255 })),
    title: t.Optional(t.String({ maxLength: 1024 })),
    locations: t.Optional(t.Record(t.String({ maxLength: 64 }), t.Unknown(), { maxProperties: 32 })),
    text: t.Optional(
      t.Object({
        before: t.Optional(t.String({ maxLength: 1024 })),
        highlight: t.Optional(t.String({ maxLength: 1024 })),
        after: t.Optional(t.String({ maxLength: 1024 })),
      }),
    ),
  },
  { additionalProperties: false },
);

const ProgressBody = t.Object({
  page: t.Optional(t.Integer()),
  completed: t.Optional(t.Boolean()),
  progression: t.Optional(t.Number()),
  locator: t.Optional(Locator),
});

export function progressRoutes(services: Services) {
  const { progress } = services;
  return new Elysia({ name: "progress-routes", prefix: "/api/v1/books" })
    .use(authPlugin(services))
    .get(
      "/:id/progress",
      async ({ caller, params, set }) => {
        const { book, progress: current } = await progress.get(caller.user, params.id);
        if (!current) {
          set.status = 204;
          return;
        }
        return toReadProgressDto(current, book.pageCount);
      },
      { auth: "user", params: IdParams, response: answers({ 200: ReadProgressDtoSchema, 204: NoContent }, 404), detail: { summary: "The caller's progress on the book; 204 when none", tags: ["progress"] } },
    )
    .put(
      "/:id/progress",
      async ({ caller, params, body }) => {
        const saved = await progress.save(caller.user, params.id, body);
        return toReadProgressDto(saved.progress, saved.book.pageCount);
      },
      {
        auth: "reading",
        params: IdParams,
        body: ProgressBody,
        response: answers({ 200: ReadProgressDtoSchema }, 404, 409, 422),
        detail: { summary: "Record the caller's progress: {page, completed, progression, locator}", tags: ["progress"] },
      },
    )
    .delete(
      "/:id/progress",
      async ({ caller, params, set }) => {
        await progress.delete(caller.user, params.id);
        set.status = 204;
      },
      { auth: "reading", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Forget the caller's progress on the book", tags: ["progress"] } },
    );
}
