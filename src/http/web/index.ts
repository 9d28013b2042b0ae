/**
 * The web interface (server-rendered HTML with htmx): one module per page under ./pages, all
 * calling services. Templates live in the top-level templates/ folder, assets in static/; both
 * are embedded in the executable. See ./views.ts for rendering and ./page-guard.ts for access.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { assetRoutes } from "./assets";
import { pageGuard } from "./page-guard";
import { adminLibraryPages } from "./pages/admin/libraries";
import { adminMaintenancePages } from "./pages/admin/maintenance";
import { adminOverviewPages } from "./pages/admin/overview";
import { adminSharingTagPages } from "./pages/admin/sharing-tags";
import { adminUserPages } from "./pages/admin/users";
import { accountPages } from "./pages/account";
import { bookPage } from "./pages/book";
import { bulkPages } from "./pages/bulk";
import { coverImages } from "./pages/covers";
import { homePage } from "./pages/home";
import { libraryPage } from "./pages/library";
import { readingListPages } from "./pages/reading-lists";
import { metadataEditPages } from "./pages/metadata-edit";
import { registrationPages } from "./pages/register";
import { searchPage } from "./pages/search";
import { seriesPage } from "./pages/series";
import { sessionPages } from "./pages/session";
import { setupPage } from "./pages/setup";
import { shelfPages } from "./pages/shelves";
import { readerPages } from "./reader";

export { htmlErrorPages } from "./error-pages";

export function webRoutes(services: Services) {
  const guard = pageGuard(services);
  return new Elysia({ name: "web-routes" })
    .use(assetRoutes())
    .use(setupPage(services, guard))
    .use(sessionPages(services, guard))
    .use(registrationPages(services, guard))
    .use(homePage(services, guard))
    .use(shelfPages(services, guard))
    .use(libraryPage(services, guard))
    .use(seriesPage(services, guard))
    .use(bookPage(services, guard))
    .use(bulkPages(services, guard))
    .use(readingListPages(services, guard))
    .use(metadataEditPages(services, guard))
    .use(searchPage(services, guard))
    .use(coverImages(services, guard))
    .use(adminOverviewPages(services, guard))
    .use(adminLibraryPages(services, guard))
    .use(adminUserPages(services, guard))
    .use(adminSharingTagPages(services, guard))
    .use(adminMaintenancePages(services, guard))
    .use(accountPages(services, guard))
    .use(readerPages(services, guard));
}
