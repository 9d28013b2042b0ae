/**
 * Admin: sharing tags. GET/POST /admin/sharing-tags (list, create), POST .../:id/delete, and
 * POST /admin/series/:id/sharing-tags (the tags a series carries, from the series page). User
 * grants are on the user's page (./users.ts).
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../../../services";
import { IdParams, Uuid } from "../../../params";
import { CsrfOnlyBody, inputProblem, noticeMessage, NoticeQuery, optionalText } from "../../forms";
import { redirectTo, type WebPageGuard } from "../../page-guard";
import { page, type Viewer } from "../../views";

const NOTICES: Record<string, string> = { created: "admin.sharingTags.notice.created", deleted: "admin.sharingTags.notice.deleted" };
/** Tags are few (a handful per household); one page shows them all. */
const TAG_LIST_LIMIT = 1000;

export function adminSharingTagPages(services: Services, guard: WebPageGuard) {
  const sharing = services.sharingTags;

  async function listPage(viewer: Viewer, extra: { notice?: string; error?: string } = {}, status = 200) {
    const { rows } = await sharing.list(0, TAG_LIST_LIMIT);
    return page("pages/admin/sharing-tags", { title: viewer.translator.t("admin.sharingTags.title"), viewer, section: "/admin/sharing-tags", tags: rows, ...extra }, status);
  }

  return new Elysia({ name: "web-admin-sharing-tags" })
    .use(guard)
    .get("/admin/sharing-tags", ({ viewer, query }) => listPage(viewer, { notice: noticeMessage(NOTICES, query.notice, viewer.translator) }), {
      page: "admin",
      query: NoticeQuery,
    })
    .post(
      "/admin/sharing-tags",
      async ({ viewer, body, request }) => {
        try {
          await sharing.create({ name: body.name, description: optionalText(body.description) });
        } catch (error) {
          return listPage(viewer, { error: inputProblem(error, viewer.translator) }, 422);
        }
        return redirectTo(request, "/admin/sharing-tags?notice=created");
      },
      {
        page: "admin",
        body: t.Object({ name: t.String({ maxLength: 100 }), description: t.Optional(t.String({ maxLength: 1000 })), _csrf: t.Optional(t.String()) }),
      },
    )
    .post(
      "/admin/sharing-tags/:id/delete",
      async ({ params, request }) => {
        await sharing.delete(params.id);
        return redirectTo(request, "/admin/sharing-tags?notice=deleted");
      },
      { page: "admin", params: IdParams, body: CsrfOnlyBody },
    )
    .post(
      "/admin/series/:id/sharing-tags",
      async ({ params, body, request }) => {
        const chosen = body.sharingTagIds === undefined ? [] : Array.isArray(body.sharingTagIds) ? body.sharingTagIds : [body.sharingTagIds];
        await sharing.setTagsOfSeries(params.id, chosen);
        return redirectTo(request, `/series/${params.id}?notice=tags-saved`);
      },
      {
        page: "admin",
        params: IdParams,
        body: t.Object({ sharingTagIds: t.Optional(t.Union([Uuid, t.Array(Uuid, { maxItems: 1000 })])), _csrf: t.Optional(t.String()) }),
      },
    );
}
