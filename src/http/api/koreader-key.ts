/**
 * The caller's own KOReader sync key under /api/v1/users/me/koreader-key: whether one is set,
 * set one of their choosing, have one generated (shown once), remove it. Setting or generating
 * one needs an interactive sign-in (src/http/auth-plugin.ts, "credentials"). KOReader signs in to
 * /koreader with the Longbox username and this key (see src/auth/koreader-keys.ts).
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { answers, NoContent, Shape } from "./schemas";

const KoreaderKeyStatusSchema = Shape({ configured: t.Boolean(), createdAt: t.Union([t.String({ format: "date-time" }), t.Null()]) });

const PATH = "/api/v1/users/me/koreader-key";

export function koreaderKeyRoutes(services: Services) {
  const keys = services.koreaderKeys;
  return new Elysia({ name: "koreader-key-routes" })
    .use(authPlugin(services))
    .get(PATH, ({ caller }) => keys.status(caller.user.id), {
      auth: "user",
      response: answers({ 200: KoreaderKeyStatusSchema }),
      detail: { summary: "Whether you have a KOReader sync key, and since when", tags: ["koreader"] },
    })
    .put(PATH, ({ caller, body }) => keys.set(caller.user.id, body.key), {
      auth: "credentials",
      body: t.Object({ key: t.String({ maxLength: 1024 }) }),
      response: answers({ 200: KoreaderKeyStatusSchema }, 422),
      detail: { summary: "Set your KOReader sync key (8 to 256 characters)", tags: ["koreader"] },
    })
    .post(
      PATH,
      async ({ caller, set }) => {
        set.status = 201;
        return keys.generate(caller.user.id);
      },
      { auth: "credentials", response: answers({ 201: Shape({ ...KoreaderKeyStatusSchema.properties, key: t.String() }) }), detail: { summary: "Generate a KOReader sync key; it is returned once", tags: ["koreader"] } },
    )
    .delete(
      PATH,
      async ({ caller, set }) => {
        await keys.clear(caller.user.id);
        set.status = 204;
      },
      { auth: "user", response: answers({ 204: NoContent }), detail: { summary: "Remove your KOReader sync key", tags: ["koreader"] } },
    );
}
