/**
 * Operations: removal of thumbnail files that no book references any more, and of uploaded
 * covers whose book or series was deleted for good. Covers in use always survive.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { answers, Shape, Integer } from "./schemas";

export function maintenanceRoutes(services: Services) {
  return new Elysia({ name: "maintenance-routes" })
    .use(authPlugin(services))
    .post(
      "/api/v1/maintenance/cleanup-thumbnails",
      () => services.covers.removeUnusedImages(),
      { auth: "admin", response: answers({ 200: Shape({ removed: Integer(), freedBytes: Integer() }) }), detail: { summary: "Remove orphaned thumbnails and covers of deleted books", tags: ["operations"] } },
    );
}
