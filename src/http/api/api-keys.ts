/**
 * API keys: the caller's own under /api/v1/api-keys (list, create: the key is shown once and
 * creating one needs an interactive sign-in, revoke), and any user's for admins under /api/v1/users/{id}/api-keys (list, revoke).
 */
import { Elysia, t } from "elysia";
import { invalidFields } from "../../errors";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { ApiKeyScopeSchema, IdParams, Uuid } from "../params";
import { answers, ApiKeyDtoSchema, NoContent, Shape } from "./schemas";

function expiryFrom(value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalidFields("BadRequest", { expiresAt: "must be an ISO 8601 date-time" });
  return date;
}

export function apiKeyRoutes(services: Services) {
  const { apiKeys, userAdministration } = services;
  return new Elysia({ name: "api-key-routes" })
    .use(authPlugin(services))
    .get("/api/v1/api-keys", ({ caller }) => apiKeys.list(caller.user.id), {
      auth: "user",
      response: answers({ 200: t.Array(ApiKeyDtoSchema) }),
      detail: { summary: "List your API keys", tags: ["api-keys"] },
    })
    .post(
      "/api/v1/api-keys",
      async ({ caller, body, set }) => {
        const created = await apiKeys.create(caller.user.id, body.name, expiryFrom(body.expiresAt ?? body.expires_at), body.scope);
        set.status = 201;
        return created;
      },
      {
        auth: "credentials",
        body: t.Object({
          name: t.String({ maxLength: 100 }),
          scope: t.Optional(ApiKeyScopeSchema),
          expiresAt: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
          expires_at: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
        }),
        response: answers({ 201: Shape({ apiKey: ApiKeyDtoSchema, key: t.String({ description: "The full key, shown once" }) }) }, 422),
        detail: {
          summary: "Create an API key (scope full, the default, or reader); the key is returned once. Needs an interactive sign-in, not an API key or Basic",
          tags: ["api-keys"],
        },
      },
    )
    .delete(
      "/api/v1/api-keys/:id",
      async ({ caller, params, set }) => {
        await apiKeys.revoke(caller.user.id, params.id);
        set.status = 204;
      },
      { auth: "user", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Revoke one of your API keys", tags: ["api-keys"] } },
    )
    .get(
      "/api/v1/users/:id/api-keys",
      async ({ params }) => {
        await userAdministration.get(params.id);
        return apiKeys.list(params.id);
      },
      { auth: "admin", params: IdParams, response: answers({ 200: t.Array(ApiKeyDtoSchema) }, 404), detail: { summary: "List a user's API keys", tags: ["api-keys", "users"] } },
    )
    .delete(
      "/api/v1/users/:id/api-keys/:keyId",
      async ({ params, set }) => {
        await userAdministration.get(params.id);
        await apiKeys.revoke(params.id, params.keyId);
        set.status = 204;
      },
      { auth: "admin", params: t.Object({ id: Uuid, keyId: Uuid }), response: answers({ 204: NoContent }, 404), detail: { summary: "Revoke one of a user's API keys", tags: ["api-keys", "users"] } },
    );
}
