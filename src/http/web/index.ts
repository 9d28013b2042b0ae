/**
 * The web interface (server-rendered HTML with htmx): one module per page under ./pages, all
 * calling services. Templates live in the top-level templates/ folder, assets in static/; both
 * are embedded in the executable. See ./views.ts for rendering and ./page-guard.ts for access.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { staticAssetRoutes } from "./assets";
import { pageGuard } from "./page-guard";
import { bookPage } from "./pages/book";
import { homePage } from "./pages/home";
import { sessionPages } from "./pages/session";
import { setupPage } from "./pages/setup";
import { readerAssetRoutes } from "./reader-assets";
import { readerPages } from "./reader";

export { htmlErrorPage } from "./error-pages";

export function webRoutes(services: Services) {
  const guard = pageGuard(services);
  return new Elysia({ name: "web-routes" })
    .use(staticAssetRoutes())
    .use(setupPage(services, guard))
    .use(sessionPages(services, guard))
    .use(homePage(services, guard))
    .use(bookPage(services, guard))
    .use(readerAssetRoutes())
    .use(readerPages(services, guard));
}
