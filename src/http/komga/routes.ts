/**
 * The Komga-compatible slice (docs/komga-api.md): Komga's REST shapes, paths and
 * authentication over Longbox's services, so Komga clients (Mihon's extension and tracker,
 * Komelia, Komic) work unchanged. Mounted under /<komga_api.prefix> only when
 * `komga_api.enabled` is true; every route needs credentials.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { komgaAccountRoutes } from "./account-routes";
import { komgaBookRoutes } from "./book-routes";
import { komgaEventRoutes } from "./event-routes";
import { komgaReadiumRoutes } from "./readium-routes";
import { komgaReferenceRoutes } from "./reference-routes";
import { komgaReadingListRoutes } from "./reading-list-routes";
import { komgaSeriesRoutes } from "./series-routes";

export function komgaRoutes(services: Services) {
  const { enabled, prefix } = services.config.komga_api;
  if (!enabled) return new Elysia({ name: "komga-routes" });
  return new Elysia({ name: "komga-routes", prefix: `/${prefix}` })
    .use(komgaAccountRoutes(services))
    .use(komgaSeriesRoutes(services))
    .use(komgaBookRoutes(services))
    .use(komgaReadiumRoutes(services))
    .use(komgaReferenceRoutes(services))
    .use(komgaReadingListRoutes(services))
    .use(komgaEventRoutes(services));
}
