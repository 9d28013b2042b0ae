/** GET /books/:id: a book's metadata, authors, progress, download and the Read/Continue buttons. */
import { Elysia } from "elysia";
import type { Services } from "../../../services";
import { IdParams } from "../../params";
import type { WebPageGuard } from "../page-guard";
import { page } from "../views";

export function bookPage(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-book-page" }).use(guard).get(
    "/books/:id",
    async ({ viewer, params }) => {
      const book = await services.books.get(viewer.user, params.id);
      return page("pages/book", { title: book.title, viewer, book });
    },
    { page: "user", params: IdParams },
  );
}
