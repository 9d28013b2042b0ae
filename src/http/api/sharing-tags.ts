/**
 * Sharing tags, admin only: the tags, the set carried by a series, and users' grants.
 * What grants mean for visibility: src/db/repositories/access.ts.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageRequest, paginated, pagingQuery } from "../paging";
import { IdParams, Uuid } from "../params";
import { answers, NoContent, Paginated, Shape, SharingTagDtoSchema } from "./schemas";

const Name = t.String({ minLength: 1, maxLength: 200 });
const Description = t.Nullable(t.String({ maxLength: 2000 }));
const AccessMode = t.Union([t.Literal("allow"), t.Literal("deny")]);
const tags = ["sharing-tags"];

const SeriesSharingTagsSchema = Shape({ seriesId: t.String({ format: "uuid" }), sharingTags: t.Array(Shape({ id: t.String({ format: "uuid" }), name: t.String() })) });
const GrantsSchema = Shape({
  grants: t.Array(Shape({ sharingTagId: t.String({ format: "uuid" }), sharingTagName: t.String(), accessMode: t.UnionEnum(["allow", "deny"]) })),
});

export function sharingTagRoutes(services: Services) {
  const sharing = services.sharingTags;
  return new Elysia({ name: "sharing-tag-routes" })
    .use(authPlugin(services))
    .get(
      "/api/v1/sharing-tags",
      async ({ query, request }) => {
        const page = pageRequest(query);
        const { rows, total } = await sharing.list(page.offset, page.pageSize);
        return paginated(request, services.config.application, page, total, rows);
      },
      { auth: "admin", query: pagingQuery, response: answers({ 200: Paginated(SharingTagDtoSchema) }), detail: { summary: "List sharing tags (paged)", tags } },
    )
    .post(
      "/api/v1/sharing-tags",
      async ({ body, set }) => {
        const tag = await sharing.create(body);
        set.status = 201;
        return tag;
      },
      {
        auth: "admin",
        body: t.Object({ name: Name, description: t.Optional(Description) }),
        response: answers({ 201: SharingTagDtoSchema }, 409),
        detail: { summary: "Create a sharing tag", tags },
      },
    )
    .get("/api/v1/sharing-tags/:id", ({ params }) => sharing.get(params.id), {
      auth: "admin",
      params: IdParams,
      response: answers({ 200: SharingTagDtoSchema }, 404),
      detail: { summary: "Read a sharing tag", tags },
    })
    .patch("/api/v1/sharing-tags/:id", ({ params, body }) => sharing.update(params.id, body), {
      auth: "admin",
      params: IdParams,
      body: t.Object({ name: t.Optional(Name), description: t.Optional(Description) }),
      response: answers({ 200: SharingTagDtoSchema }, 404, 409),
      detail: { summary: "Rename a sharing tag or change its description", tags },
    })
    .delete(
      "/api/v1/sharing-tags/:id",
      async ({ params, set }) => {
        await sharing.delete(params.id);
        set.status = 204;
      },
      { auth: "admin", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Delete a sharing tag, its series links and grants", tags } },
    )
    .get("/api/v1/series/:id/sharing-tags", ({ params }) => sharing.tagsOfSeries(params.id), {
      auth: "admin",
      params: IdParams,
      response: answers({ 200: SeriesSharingTagsSchema }, 404),
      detail: { summary: "The sharing tags of a series", tags },
    })
    .put("/api/v1/series/:id/sharing-tags", ({ params, body }) => sharing.setTagsOfSeries(params.id, body.sharingTagIds), {
      auth: "admin",
      params: IdParams,
      body: t.Object({ sharingTagIds: t.Array(Uuid, { maxItems: 1000 }) }),
      response: answers({ 200: SeriesSharingTagsSchema }, 404, 422),
      detail: { summary: "Replace the sharing tags of a series", tags },
    })
    .get("/api/v1/users/:id/sharing-tags", async ({ params }) => ({ grants: await sharing.grantsOf(params.id) }), {
      auth: "admin",
      params: IdParams,
      response: answers({ 200: GrantsSchema }, 404),
      detail: { summary: "A user's sharing-tag grants", tags },
    })
    .put(
      "/api/v1/users/:id/sharing-tags",
      async ({ params, body }) => ({ grants: await sharing.grant(params.id, body.sharingTagId, body.accessMode) }),
      {
        auth: "admin",
        params: IdParams,
        body: t.Object({ sharingTagId: Uuid, accessMode: AccessMode }),
        response: answers({ 200: GrantsSchema }, 404, 422),
        detail: { summary: "Give a user an allow or deny grant for a sharing tag", tags },
      },
    )
    .delete(
      "/api/v1/users/:id/sharing-tags/:tagId",
      async ({ params, set }) => {
        await sharing.revoke(params.id, params.tagId);
        set.status = 204;
      },
      {
        auth: "admin",
        params: t.Object({ id: Uuid, tagId: Uuid }),
        response: answers({ 204: NoContent }, 404),
        detail: { summary: "Remove a user's grant for a sharing tag", tags },
      },
    );
}
