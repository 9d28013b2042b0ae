/** GET /: continue reading, recently added and the libraries the viewer can see. */
import { Elysia } from "elysia";
import type { Services } from "../../../services";
import type { WebPageGuard } from "../page-guard";
import { page } from "../views";

const SHELF_SIZE = 12;

export function homePage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-home-page" }).use(guard).get(
    "/",
    async ({ viewer }) => {
      const shelf = { offset: 0, limit: SHELF_SIZE };
      const [continueReading, recentlyAdded, libraries] = await Promise.all([
        services.books.continueReading(viewer.user, shelf),
        services.books.recentlyAdded(viewer.user, shelf),
        services.libraries.list(viewer.user),
      ]);
      return page("pages/home", {
        title: "Home",
        viewer,
        continueReading: continueReading.rows,
        recentlyAdded: recentlyAdded.rows,
        libraries,
      });
    },
    { page: "user" },
  );
}
