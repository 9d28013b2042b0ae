/**
 * GET /shelves/:id: all of one home-page row as a grid of covers; htmx asks for the next page
 * when the last card scrolls into view (those requests get the grid fragment only).
 */
import { Elysia, t } from "elysia";
import { notFound } from "../../../errors";
import type { Services } from "../../../services";
import type { WebPageGuard } from "../page-guard";
import { shelfById } from "../shelves";
import { htmlResponse, page, renderTemplate, urlWith, wantsFragment } from "../views";

const GRID_PAGE_SIZE = 48;

export function shelfPages(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-shelf-pages" }).use(guard).get(
    "/shelves/:id",
    async ({ viewer, params, query, request }) => {
      const shelf = shelfById(params.id);
      if (!shelf) throw notFound("shelf");
      const pageNumber = query.page ?? 1;
      const { rows, total } = await shelf.load(services, viewer.user, { offset: (pageNumber - 1) * GRID_PAGE_SIZE, limit: GRID_PAGE_SIZE });
      const nextUrl = pageNumber * GRID_PAGE_SIZE < total ? urlWith(`/shelves/${shelf.id}`, { page: pageNumber + 1 }) : null;
      const title = viewer.translator.t(shelf.titleId);
      const data = { title, viewer, shelf: { id: shelf.id, title }, kind: shelf.kind, rows, total, page: pageNumber, nextUrl };
      if (wantsFragment(request)) return htmlResponse(renderTemplate("partials/shelf-grid-page", data));
      return page("pages/shelf", data);
    },
    {
      page: "user",
      params: t.Object({ id: t.String({ maxLength: 40 }) }),
      query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })) }),
    },
  );
}
