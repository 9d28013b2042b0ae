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

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file's size in the unit a person reads: KB below a megabyte. */
function fileSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : megabytes(bytes);
}

/** How long the process has run, in the unit a person reads ("12 min", "5.3 h", "3 days"). */
function uptime(seconds: number): string {
  if (seconds < 60) return "less than a minute";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

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
        return page("pages/admin/overview", {
          title: "Server",
          viewer,
          section: "/admin",
          databaseType: services.config.database.type,
          inventory: snapshot.inventory,
          scans: snapshot.scans,
          process: { ...snapshot.process, rss: megabytes(snapshot.process.rssBytes), uptime: uptime(snapshot.process.uptimeSeconds) },
          totalFileSize: megabytes(snapshot.inventory.totalFileBytes),
          http: { requests, errors, meanMs: latency.count > 0 ? ((latency.seconds / latency.count) * 1000).toFixed(1) : "0" },
          backup: {
            last: lastBackup && { at: lastBackup.createdAt.toISOString().replace("T", " ").slice(0, 19) + " UTC", size: fileSize(lastBackup.bytes) },
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
      async () => {
        const removal = await services.covers.removeUnusedImages();
        return htmlResponse(renderTemplate("partials/notice", { message: `Removed ${removal.removed} unused images (${megabytes(removal.freedBytes)} freed).` }));
      },
      { page: "admin", body: CsrfOnlyBody },
    );
}
