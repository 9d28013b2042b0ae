/**
 * OPDS-PSE page streaming: `/opds/v1.2/books/{id}/pages/{pageNumber}?maxWidth={maxWidth}`.
 *
 * - `pageNumber` counts from 0, as OPDS-PSE says (the REST page route counts from 1).
 * - `maxWidth` scales the page down; a reader that leaves the placeholder unfilled (the literal
 *   `{maxWidth}`) or sends nonsense gets the page at its own size rather than an error.
 * - Only JPEG, PNG and GIF leave this route (PSE allows no other type); other pages are
 *   re-encoded as JPEG.
 * - Like Komga, fetching a page records it as the caller's progress (the last page completes
 *   the book): PSE readers have no other way to report where the reader is. Pages are
 *   revalidated on every view, as on every page route (../page-response.ts), so re-reading a
 *   page still reaches the server.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageResponse } from "../page-response";
import { OPDS_ROOTS, PAGE_STREAM_PATH } from "./urls";
import { PAGE_STREAM_TYPES } from "./vocabulary";

/** The widths the page service scales to (as the REST page route's `width`). */
const MIN_WIDTH = 16;
const MAX_WIDTH = 4096;

/** The requested maximum width, or undefined for the page's own size. */
export function requestedWidth(maxWidth: string | undefined): number | undefined {
  if (maxWidth === undefined || !/^\d{1,9}$/.test(maxWidth)) return undefined;
  const width = Number(maxWidth);
  if (width === 0 || width > MAX_WIDTH) return undefined;
  return Math.max(width, MIN_WIDTH);
}

export function pageStreamRoute(services: Services) {
  const { pages, progress } = services;
  return new Elysia({ name: "opds-page-stream", prefix: OPDS_ROOTS["v1.2"] })
    .use(authPlugin(services, { basicChallenge: true }))
    .get(
      PAGE_STREAM_PATH,
      async ({ caller, params, query, request }) => {
        const pageNumber = params.pageNumber + 1;
        const page = await pages.locate(caller.user, params.id, pageNumber, requestedWidth(query.maxWidth));
        await progress.record(caller.user, page.book, { page: pageNumber });
        return pageResponse(request, pages, page, { read: () => pages.readAs(page, PAGE_STREAM_TYPES) });
      },
      {
        auth: "user",
        params: t.Object({ id: t.String({ format: "uuid" }), pageNumber: t.Integer({ minimum: 0 }) }),
        query: t.Object({ maxWidth: t.Optional(t.String({ maxLength: 32 })) }),
        detail: { summary: "OPDS-PSE: one page (from 0) as JPEG, PNG or GIF; records the caller's progress", tags: ["opds"] },
      },
    );
}
