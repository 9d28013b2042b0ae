/**
 * GET /books/:id: a book's metadata, summary, authors, progress, download, the previous and next
 * books of its series and the Read/Continue buttons
 * (they open the reader at /read/:id, page N to continue). POST /books/:id/read-state marks it
 * read or unread and answers the updated part (a row of the series list or the book's actions).
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../../services";
import { IdParams } from "../../params";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { readerPrefetch } from "../reader";
import { htmlResponse, page, renderTemplate, wantsFragment } from "../views";

export function bookPage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-book-page" })
    .use(guard)
    .get(
      "/books/:id",
      async ({ viewer, params, request }) => {
        const book = await services.books.get(viewer.user, params.id);
        // The Read button is on this page: the format's runtime starts while the person looks,
        // and the browser prefetches the reader's first screen.
        services.pages.prepareReading(book);
        const [previous, next, prefetch] = await Promise.all([
          services.series.previousBook(viewer.user, book),
          services.series.nextBook(viewer.user, book),
          readerPrefetch(services, viewer.user, book, request),
        ]);
        return page("pages/book", {
          title: book.title,
          viewer,
          book,
          previous,
          next,
          prefetch,
          authors: book.metadata.authors ?? [],
          fileSize: viewer.translator.size(book.fileSize),
          directionLabel: book.readingDirection ? viewer.translator.t(`direction.${book.readingDirection}`) : null,
        });
      },
      { page: "user", params: IdParams },
    )
    .post(
      "/books/:id/read-state",
      async ({ viewer, params, body, request }) => {
        const book = await services.books.get(viewer.user, params.id);
        await services.progress.markRead(viewer.user, [book], body.read === "true");
        if (!wantsFragment(request)) return redirectTo(request, `/books/${book.id}`);
        const updated = await services.books.get(viewer.user, book.id);
        const partial = body.view === "row" ? "partials/book-row" : "partials/book-actions";
        return htmlResponse(renderTemplate(partial, { viewer, book: updated }));
      },
      {
        page: "reading",
        params: IdParams,
        body: t.Object({
          read: t.Union([t.Literal("true"), t.Literal("false")]),
          view: t.Optional(t.Union([t.Literal("row"), t.Literal("actions")])),
          _csrf: t.Optional(t.String()),
        }),
      },
    );
}
