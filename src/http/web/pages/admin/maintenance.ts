/**
 * Admin: the catalogue's problems. GET /admin/errors (analysis errors grouped by type) with
 * POST /admin/books/:id/analyze (re-analyze one book, answers its updated row), GET
 * /admin/duplicates with POST /admin/duplicates/detect.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../../../services";
import { IdParams } from "../../../params";
import { CsrfOnlyBody } from "../../forms";
import { redirectTo, type WebPageGuard } from "../../page-guard";
import { htmlResponse, page, renderTemplate } from "../../views";

/** Books shown per error type; the page says how many more there are. */
const BOOKS_PER_ERROR_TYPE = 50;

export function adminMaintenancePages(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-admin-maintenance" })
    .use(guard)
    .get(
      "/admin/errors",
      async ({ viewer }) => {
        const { totalBooksWithErrors, groups } = await services.books.errorGroups(viewer.user, {}, { offset: 0, limit: BOOKS_PER_ERROR_TYPE });
        return page("pages/admin/errors", { title: viewer.translator.t("admin.errors.title"), viewer, section: "/admin/errors", totalBooksWithErrors, groups });
      },
      { page: "admin" },
    )
    .post(
      "/admin/books/:id/analyze",
      async ({ viewer, params }) => {
        const book = await services.books.reanalyze(viewer.user, params.id);
        const errors = await services.books.errorsOf(viewer.user, book.id);
        return htmlResponse(renderTemplate("partials/error-row", { viewer, book, errors }));
      },
      { page: "admin", params: IdParams },
    )
    .get(
      "/admin/duplicates",
      async ({ viewer, query }) => {
        const groups = await services.duplicates.list(viewer.user);
        const { t } = viewer.translator;
        const notice = query.found
          ? t("admin.duplicates.found", { count: Number(query.found) })
          : query.detection
            ? t("admin.duplicates.detection", { state: query.detection })
            : undefined;
        return page("pages/admin/duplicates", { title: t("admin.duplicates.title"), viewer, section: "/admin/duplicates", groups, notice });
      },
      {
        page: "admin",
        query: t.Object({
          found: t.Optional(t.String({ maxLength: 12 })),
          detection: t.Optional(t.Union([t.Literal("pending"), t.Literal("running"), t.Literal("failed")])),
        }),
      },
    )
    .post(
      "/admin/duplicates/detect",
      async ({ viewer, request }) => {
        const detection = await services.duplicates.detect(viewer.user);
        if (detection.status === "completed") return redirectTo(request, `/admin/duplicates?found=${(detection.hashGroups ?? 0) + (detection.metadataGroups ?? 0)}`);
        return redirectTo(request, `/admin/duplicates?detection=${detection.status}`);
      },
      { page: "admin", body: CsrfOnlyBody },
    );
}
