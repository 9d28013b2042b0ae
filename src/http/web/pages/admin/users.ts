/**
 * Admin: users. GET/POST /admin/users (list, create), GET/POST /admin/users/:id (email, role,
 * disabled), POST .../password (reset; ends their sessions), .../delete, .../grants and
 * .../grants/:tagId/revoke (sharing-tag grants), .../api-keys and .../api-keys/:keyId/revoke.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../../../services";
import { IdParams, Uuid } from "../../../params";
import { ApiKeyForm, apiKeySectionData, createApiKey, revokeApiKey, type ApiKeySection, type ApiKeySectionData } from "../../api-key-routes";
import { CsrfOnlyBody, inputProblem, noticeMessage, NoticeQuery, optionalText } from "../../forms";
import { redirectTo, type WebPageGuard } from "../../page-guard";
import { page, type Viewer } from "../../views";

const Role = t.Union([t.Literal("user"), t.Literal("admin")]);
const UserAndKey = t.Object({ id: Uuid, keyId: Uuid });
const UserAndTag = t.Object({ id: Uuid, tagId: Uuid });
/** One page of users is all the list shows; a household or a club has far fewer. */
const USER_LIST_LIMIT = 500;

const NOTICES: Record<string, string> = {
  created: "admin.users.notice.created",
  saved: "admin.users.notice.saved",
  "password-reset": "admin.users.notice.passwordReset",
  deleted: "admin.users.notice.deleted",
  "grants-changed": "admin.users.notice.grantsChanged",
};

export function adminUserPages(services: Services, guard: WebPageGuard) {
  const admin = services.userAdministration;

  async function listPage(viewer: Viewer, extra: { notice?: string; error?: string; form?: Record<string, string | undefined> } = {}, status = 200) {
    const { rows } = await admin.list(0, USER_LIST_LIMIT);
    return page("pages/admin/users", { title: viewer.translator.t("admin.users.title"), viewer, section: "/admin/users", users: rows, form: {}, ...extra }, status);
  }

  const keySection = (viewer: Viewer, user: { id: string; username: string }): ApiKeySection => ({
    userId: user.id,
    owner: user.username,
    basePath: `/admin/users/${user.id}/api-keys`,
    page: (apiKeys, status) => userPage(viewer, user.id, { apiKeys }, status),
  });

  async function userPage(viewer: Viewer, id: string, extra: { notice?: string; error?: string; apiKeys?: ApiKeySectionData } = {}, status = 200) {
    const user = await admin.get(id);
    const [grants, tags] = await Promise.all([services.sharingTags.grantsOf(user.id), services.sharingTags.list(0, 1000)]);
    const apiKeys = extra.apiKeys ?? (await apiKeySectionData(services, viewer, keySection(viewer, user)));
    return page(
      "pages/admin/user",
      { title: user.username, viewer, section: "/admin/users", user, grants, tags: tags.rows, ...extra, apiKeys },
      status,
    );
  }

  /** Runs a change to one user and comes back to their page, with the problem when the input was wrong. */
  async function change(viewer: Viewer, request: Request, id: string, action: () => Promise<unknown>, notice: string): Promise<Response> {
    try {
      await action();
    } catch (error) {
      return userPage(viewer, id, { error: inputProblem(error, viewer.translator) }, 422);
    }
    return redirectTo(request, `/admin/users/${id}?notice=${notice}`);
  }

  return new Elysia({ name: "web-admin-users" })
    .use(guard)
    .get("/admin/users", ({ viewer, query }) => listPage(viewer, { notice: noticeMessage(NOTICES, query.notice, viewer.translator) }), {
      page: "admin",
      query: NoticeQuery,
    })
    .post(
      "/admin/users",
      async ({ viewer, body, request }) => {
        try {
          await admin.create({ username: body.username, email: optionalText(body.email), password: body.password, role: body.role });
        } catch (error) {
          return listPage(viewer, { error: inputProblem(error, viewer.translator), form: { username: body.username, email: body.email, role: body.role } }, 422);
        }
        return redirectTo(request, "/admin/users?notice=created");
      },
      {
        page: "admin-credentials",
        body: t.Object({
          username: t.String({ maxLength: 64 }),
          email: t.Optional(t.String({ maxLength: 320 })),
          password: t.String({ maxLength: 1024 }),
          role: Role,
          _csrf: t.Optional(t.String()),
        }),
      },
    )
    .get("/admin/users/:id", ({ viewer, params, query }) => userPage(viewer, params.id, { notice: noticeMessage(NOTICES, query.notice, viewer.translator) }), {
      page: "admin",
      params: IdParams,
      query: NoticeQuery,
    })
    .post(
      "/admin/users/:id",
      ({ viewer, params, body, request }) =>
        change(viewer, request, params.id, () => admin.update(params.id, { email: optionalText(body.email), role: body.role, disabled: body.disabled === "true" }), "saved"),
      {
        page: "admin",
        params: IdParams,
        body: t.Object({ email: t.Optional(t.String({ maxLength: 320 })), role: Role, disabled: t.Optional(t.Literal("true")), _csrf: t.Optional(t.String()) }),
      },
    )
    .post(
      "/admin/users/:id/password",
      ({ viewer, params, body, request }) => change(viewer, request, params.id, () => admin.update(params.id, { password: body.password }), "password-reset"),
      { page: "admin-credentials", params: IdParams, body: t.Object({ password: t.String({ maxLength: 1024 }), _csrf: t.Optional(t.String()) }) },
    )
    .post(
      "/admin/users/:id/delete",
      async ({ viewer, params, request }) => {
        try {
          await admin.delete(params.id);
        } catch (error) {
          return userPage(viewer, params.id, { error: inputProblem(error, viewer.translator) }, 409);
        }
        return redirectTo(request, "/admin/users?notice=deleted");
      },
      { page: "admin", params: IdParams, body: CsrfOnlyBody },
    )
    .post(
      "/admin/users/:id/grants",
      ({ viewer, params, body, request }) =>
        change(viewer, request, params.id, () => services.sharingTags.grant(params.id, body.sharingTagId, body.accessMode), "grants-changed"),
      {
        page: "admin",
        params: IdParams,
        body: t.Object({ sharingTagId: Uuid, accessMode: t.Union([t.Literal("allow"), t.Literal("deny")]), _csrf: t.Optional(t.String()) }),
      },
    )
    .post(
      "/admin/users/:id/grants/:tagId/revoke",
      ({ viewer, params, request }) => change(viewer, request, params.id, () => services.sharingTags.revoke(params.id, params.tagId), "grants-changed"),
      { page: "admin", params: UserAndTag, body: CsrfOnlyBody },
    )
    .post(
      "/admin/users/:id/api-keys",
      async ({ viewer, params, body, request }) => createApiKey(services, request, viewer, keySection(viewer, await admin.get(params.id)), body),
      { page: "admin-credentials", params: IdParams, body: ApiKeyForm },
    )
    .post(
      "/admin/users/:id/api-keys/:keyId/revoke",
      async ({ viewer, params, request }) => revokeApiKey(services, request, viewer, keySection(viewer, await admin.get(params.id)), params.keyId),
      { page: "admin", params: UserAndKey, body: CsrfOnlyBody },
    );
}
