/** User administration under /api/v1/users: admin only. PUT with `password` is the admin password reset. */
import { Elysia, t } from "elysia";
import { assertAuthorityFor } from "../../auth/authenticator";
import { toUserDto } from "../../auth/users";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { IdParams } from "../params";
import { pageRequest, paginated, pagingQuery } from "../paging";
import { answers, NoContent, Paginated, UserDtoSchema } from "./schemas";

const role = t.Union([t.Literal("admin"), t.Literal("user")]);

export function userRoutes(services: Services) {
  const admin = services.userAdministration;
  return new Elysia({ name: "user-routes" })
    .use(authPlugin(services))
    .get(
      "/api/v1/users",
      async ({ query, request }) => {
        const page = pageRequest(query);
        const { rows, total } = await admin.list(page.offset, page.pageSize);
        return paginated(request, services.config.application, page, total, rows.map(toUserDto));
      },
      { auth: "admin", query: pagingQuery, response: answers({ 200: Paginated(UserDtoSchema) }), detail: { summary: "List users (paged)", tags: ["users"] } },
    )
    .post(
      "/api/v1/users",
      async ({ body, set }) => {
        const user = await admin.create({ username: body.username, email: body.email ?? null, password: body.password, role: body.role ?? "user" });
        set.status = 201;
        return toUserDto(user);
      },
      {
        auth: "admin-credentials",
        body: t.Object({
          username: t.String({ minLength: 1, maxLength: 64 }),
          email: t.Optional(t.String({ maxLength: 320 })),
          password: t.String({ maxLength: 1024 }),
          role: t.Optional(role),
        }),
        response: answers({ 201: UserDtoSchema }, 409, 422),
        detail: { summary: "Create a user", tags: ["users"] },
      },
    )
    .get("/api/v1/users/:id", async ({ params }) => toUserDto(await admin.get(params.id)), {
      auth: "admin",
      params: IdParams,
      response: answers({ 200: UserDtoSchema }, 404),
      detail: { summary: "Read a user", tags: ["users"] },
    })
    .put(
      "/api/v1/users/:id",
      async ({ caller, params, body }) => {
        // A password reset mints a credential; the rest of an update is a plain admin write.
        if (body.password !== undefined) assertAuthorityFor(caller, "change-credentials");
        return toUserDto(await admin.update(params.id, body));
      },
      {
        auth: "admin",
        params: IdParams,
        body: t.Object({
          password: t.Optional(t.String({ maxLength: 1024 })),
          email: t.Optional(t.Nullable(t.String({ maxLength: 320 }))),
          role: t.Optional(role),
          disabled: t.Optional(t.Boolean()),
          keepApiKeys: t.Optional(t.Boolean()),
        }),
        response: answers({ 200: UserDtoSchema }, 404, 409, 422),
        detail: {
          summary:
            "Update a user; `password` resets the password (needs an interactive sign-in), ending every credential of the user (sessions, tokens, API keys, the KOReader sync key); `keepApiKeys: true` is refused (422)",
          tags: ["users"],
        },
      },
    )
    .delete(
      "/api/v1/users/:id",
      async ({ params, set }) => {
        await admin.delete(params.id);
        set.status = 204;
      },
      { auth: "admin", params: IdParams, response: answers({ 204: NoContent }, 404, 409), detail: { summary: "Delete a user", tags: ["users"] } },
    );
}
