/**
 * Admin: GET /admin, the server at a glance (version, database, catalogue counts, a summary of
 * the request metrics, the last backup in backup.dir, links to the Prometheus metrics and the API documentation), and POST
 * /admin/maintenance/cleanup-thumbnails (removes thumbnails and covers nothing uses).
 */
import { Elysia } from "elysia";
import type { Services } from "../../../../services";
import { htmlResponse, page, renderTemplate } from "../../views";
import { CsrfOnlyBody } from "../../forms";
import type { WebPageGuard } from "../../page-guard";

export function adminOverviewPages(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-admin-overview" })
    .use(guard)
    .get(
      "/admin",
      async ({ viewer }) => {
        const snapshot = await services.metrics.snapshot(viewer.user);
        const lastBackup = await services.backups.last();
        const requests = snapshot.http.requests.reduce((sum, entry) => sum + entry.count, 0);
        const errors = snapshot.http.requests.filter((entry) => entry.status >= 500).reduce((sum, entry) => sum + entry.count, 0);
        const latency = snapshot.http.latency.routes.reduce((sum, route) => ({ count: sum.count + route.count, seconds: sum.seconds + route.sumSeconds }), { count: 0, seconds: 0 });
        const { t, size, duration, number, date } = viewer.translator;
        return page("pages/admin/overview", {
          title: t("admin.overview.title"),
          viewer,
          section: "/admin",
          databaseType: services.config.database.type,
          inventory: snapshot.inventory,
          scans: snapshot.scans,
          process: { ...snapshot.process, rss: size(snapshot.process.rssBytes), uptime: duration(snapshot.process.uptimeSeconds) },
          totalFileSize: size(snapshot.inventory.totalFileBytes),
          http: { requests, errors, meanMs: number(latency.count > 0 ? Math.round((latency.seconds / latency.count) * 10_000) / 10 : 0) },
          backup: {
            last: lastBackup && { at: date(lastBackup.createdAt, "dateTime"), iso: lastBackup.createdAt.toISOString(), size: size(lastBackup.bytes) },
            schedule: services.config.backup.schedule,
            keep: services.config.backup.keep,
            dir: services.paths.backupDir,
          },
        });
      },
      { page: "admin" },
    )
    .post(
      "/admin/maintenance/cleanup-thumbnails",
      async ({ viewer }) => {
        const removal = await services.covers.removeUnusedImages();
        const { t, size } = viewer.translator;
        return htmlResponse(renderTemplate("partials/notice", { viewer, message: t("overview.cleanup.done", { count: removal.removed, freed: size(removal.freedBytes) }) }));
      },
      { page: "admin", body: CsrfOnlyBody },
    );
}
