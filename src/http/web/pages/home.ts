/** GET /: the home page's rows (./../shelves.ts), each cut short with a link to see all of it. */
import { Elysia } from "elysia";
import type { Services } from "../../../services";
import type { WebPageGuard } from "../page-guard";
import { SHELVES } from "../shelves";
import { page } from "../views";

const SHELF_SIZE = 12;

export function homePage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-home-page" }).use(guard).get(
    "/",
    async ({ viewer }) => {
      const shelves = await Promise.all(
        SHELVES.map(async (shelf) => ({ shelf, ...(await shelf.load(services, viewer.user, { offset: 0, limit: SHELF_SIZE })) })),
      );
      return page("pages/home", { title: viewer.translator.t("home.title"), viewer, shelves, shelfSize: SHELF_SIZE });
    },
    { page: "user" },
  );
}
