/** Operations: removal of thumbnail files that no book references any more. */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";

export function maintenanceRoutes(services: Services) {
  return new Elysia({ name: "maintenance-routes" })
    .use(authPlugin(services))
    .post("/api/v1/maintenance/cleanup-thumbnails", () => services.thumbnails.cleanup(), {
      auth: "admin",
      detail: { summary: "Remove orphaned thumbnails", tags: ["operations"] },
    });
}
