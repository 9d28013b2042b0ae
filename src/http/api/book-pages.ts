/** Pages of a book: the list, and one page's image (1-indexed, optionally scaled down to `width`). */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageResponse } from "../page-response";
import { IdParams, IntegerQuery, integerQuery, PageNumberParam, Uuid, type IntegerRange } from "../params";
import { answers, bytesOf, documentedAnswers, Integer, mediaAnswer, Shape } from "./schemas";

/** Widths a page can be scaled down to. */
const WIDTH: IntegerRange = { minimum: 16, maximum: 4096 };

export function bookPageRoutes(services: Services) {
  const { pages } = services;
  return new Elysia({ name: "book-page-routes", prefix: "/api/v1/books" })
    .use(authPlugin(services))
    .get("/:id/pages", async ({ caller, params }) => pages.list(caller.user, params.id), {
      auth: "user",
      params: IdParams,
      response: answers(
        {
          200: t.Array(
            Shape({
              number: Integer(),
              fileName: t.String(),
              mediaType: t.String(),
              width: t.Union([Integer(), t.Null()]),
              height: t.Union([Integer(), t.Null()]),
              size: t.Union([Integer(), t.Null()]),
            }),
          ),
        },
        404,
      ),
      detail: { summary: "The book's pages: number (from 1), file name, media type, size", tags: ["pages"] },
    })
    .get(
      "/:id/pages/:n",
      async ({ caller, params, query, request }) => {
        const page = await pages.locate(caller.user, params.id, Number(params.n), integerQuery(query.width, "width", WIDTH));
        return pageResponse(request, pages, page);
      },
      {
        auth: "user",
        params: t.Object({ id: Uuid, n: PageNumberParam }),
        query: t.Object({ width: IntegerQuery(WIDTH, "scale the page down to this width (never up)") }),
        detail: {
          summary: "One page's image; 1-indexed; ETag and 304; PDF pages rendered",
          tags: ["pages"],
          responses: documentedAnswers({ 200: mediaAnswer("The page's image", bytesOf("image/jpeg", "image/png", "image/webp", "image/gif", "image/avif", "image/jxl")), 204: mediaAnswer("A browser's prefetch (Sec-Purpose: prefetch) declined while another is being rendered: nothing now, not stored"), 304: mediaAnswer("Not modified") }, 404),
        },
      },
    );
}
