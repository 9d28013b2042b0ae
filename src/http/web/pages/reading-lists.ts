/**
 * Collections (of series), read lists (of books) and want-to-read in the web interface
 * (issue 33), over the same service as the REST routes (src/library/reading-lists.ts), so the
 * sharing tags cut what a viewer sees and counts inside every list. Both kinds of list get the
 * same pages, built once by `listPages`:
 *
 *   GET  /collections, /readlists             the shared lists and the viewer's own (paged), a create form
 *   POST /collections, /readlists             create
 *   GET  /collections/:id, /readlists/:id     the list's series or books in order (paged)
 *   POST .../:id/edit | /delete               rename (and for a collection: ordered), delete
 *   POST .../:id/items/:itemId/remove | /move remove one item; move it to `position` (1-based)
 *
 * A move sent by static/js/list-order.js (drag, Move buttons, Alt+arrow keys) is an htmx-style
 * request and gets 204; the same buttons without script post the form and come back to the page.
 * Read lists add POST /readlists/import (a ComicRack .cbl file); /want-to-read is the viewer's
 * want-to-read series, toggled from a series' page (POST /series/:id/want-to-read).
 */
import { Elysia, t } from "elysia";
import type { ListKind, ReadingListRecord } from "../../../db";
import { DomainError, notFound } from "../../../errors";
import { MAX_CBL_BYTES } from "../../../library/comicrack-list";
import type { UnmatchedEntry } from "../../../library/read-list-import";
import { MAX_LIST_NAME } from "../../../library/reading-lists";
import type { Translator } from "../../../i18n/translator";
import type { Services } from "../../../services";
import { IdParams, Uuid } from "../../params";
import { CsrfOnlyBody, inputProblem } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { htmlResponse, page, renderTemplate, urlWith, wantsFragment, type Viewer } from "../views";

const GRID_PAGE_SIZE = 48;
/** The first unread book of a read list is looked for this many books at a time. */
const UNREAD_SCAN_PAGE = 200;

interface KindPages {
  kind: ListKind;
  path: string;
  /** What the list holds, for the messages of the API (English, like every API message). */
  item: string;
  noun: string;
}

const KINDS: Record<ListKind, KindPages> = {
  collection: { kind: "collection", path: "/collections", noun: "collection", item: "series" },
  readlist: { kind: "readlist", path: "/readlists", noun: "read list", item: "book" },
};

/** `?notice=` after a redirect: what the person just did. */
const NOTICES: Record<string, string> = {
  created: "lists.notice.created",
  deleted: "lists.notice.deleted",
  saved: "lists.notice.saved",
  removed: "lists.notice.removed",
  moved: "lists.notice.moved",
};
const noticeOf = (pages: KindPages, notice: string | undefined, { t }: Translator): string | undefined => {
  const id = notice === undefined ? undefined : NOTICES[notice];
  return id && t(id, { kind: pages.kind });
};

const PageQuery = t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })), notice: t.Optional(t.String({ maxLength: 40 })) });
/** Longer names than the service allows are accepted here, so its clear message is shown rather than a 400 page. */
const NameField = t.String({ maxLength: MAX_LIST_NAME * 4 });
const Checkbox = t.Optional(t.Literal("on"));
const ItemParams = t.Object({ id: Uuid, itemId: Uuid });

/** A list as its pages show it. */
function listView(services: Services, viewer: Viewer, list: ReadingListRecord) {
  return { ...list, shared: list.ownerId === null, editable: services.readingLists.canEdit(viewer.user, list) };
}

export function readingListPages(services: Services, guard: WebPageGuard) {
  const lists = services.readingLists;
  return new Elysia({ name: "web-reading-list-pages" })
    .use(guard)
    .use(listPages(services, guard, KINDS.collection))
    .use(listPages(services, guard, KINDS.readlist))
    .post(
      "/readlists/import",
      async ({ viewer, body }) => {
        const pages = KINDS.readlist;
        let imported: { id: string; name: string; matched: number; unmatched: UnmatchedEntry[] };
        try {
          const file = body.file;
          if (!(file instanceof Blob) || file.size === 0) throw new DomainError("BadRequest", "choose a .cbl file to import");
          if (file.size > MAX_CBL_BYTES) throw new DomainError("UnprocessableEntity", `a reading list file is at most ${MAX_CBL_BYTES} bytes`);
          const { readList, unmatched } = await services.readListImporter.importComicRack(viewer.user, new Uint8Array(await file.arrayBuffer()));
          imported = { id: readList.id, name: readList.name, matched: readList.itemCount, unmatched };
        } catch (error) {
          return listIndex(services, viewer, pages, 1, { error: inputProblem(error, viewer.translator), unmatched: unmatchedOf(error) }, 422);
        }
        return listIndex(services, viewer, pages, 1, { imported });
      },
      { page: "user", body: t.Object({ file: t.Optional(t.Unknown()), _csrf: t.Optional(t.String()) }) },
    )
    .get(
      "/want-to-read",
      async ({ viewer, query, request }) => {
        const pageNumber = query.page ?? 1;
        const { rows, total } = await lists.wantToRead(viewer.user, { offset: (pageNumber - 1) * GRID_PAGE_SIZE, limit: GRID_PAGE_SIZE });
        const nextUrl = pageNumber * GRID_PAGE_SIZE < total ? urlWith("/want-to-read", { page: pageNumber + 1 }) : null;
        // The page and grid of a home shelf (a grid of series under a title, a link home above it).
        const title = viewer.translator.t("wantToRead.title");
        const data = { title, viewer, shelf: { title }, kind: "series", rows, total, page: pageNumber, nextUrl };
        if (wantsFragment(request)) return htmlResponse(renderTemplate("partials/shelf-grid-page", data));
        return page("pages/shelf", data);
      },
      { page: "user", query: PageQuery },
    )
    .post(
      "/series/:id/want-to-read",
      async ({ viewer, params, body, request }) => {
        if (body.want === "true") await lists.addWantToRead(viewer.user, params.id);
        else if (await lists.inWantToRead(viewer.user, params.id)) await lists.removeWantToRead(viewer.user, params.id);
        if (!wantsFragment(request)) return redirectTo(request, `/series/${params.id}`);
        const wanted = await lists.inWantToRead(viewer.user, params.id);
        return htmlResponse(renderTemplate("partials/want-to-read-toggle", { viewer, seriesId: params.id, wanted, announce: true }));
      },
      { page: "user", params: IdParams, body: t.Object({ want: t.Union([t.Literal("true"), t.Literal("false")]), _csrf: t.Optional(t.String()) }) },
    );
}

/** The entries of a .cbl that matched nothing, when the import was refused for that. */
function unmatchedOf(error: unknown): UnmatchedEntry[] {
  const details = error instanceof DomainError ? (error.details as { unmatched?: UnmatchedEntry[] } | undefined) : undefined;
  return details?.unmatched ?? [];
}

/** The page of one kind's lists (or, for htmx's next page, its cards), with what a form left to say. */
async function listIndex(services: Services, viewer: Viewer, pages: KindPages, pageNumber: number, extra: Record<string, unknown> = {}, status = 200, fragment = false) {
  const { rows, total } = await services.readingLists.list(viewer.user, pages.kind, {}, { offset: (pageNumber - 1) * GRID_PAGE_SIZE, limit: GRID_PAGE_SIZE });
  const nextUrl = pageNumber * GRID_PAGE_SIZE < total ? urlWith(pages.path, { page: pageNumber + 1 }) : null;
  const data = { title: viewer.translator.t("lists.title", { kind: pages.kind }), viewer, pages, rows: rows.map((list) => listView(services, viewer, list)), total, page: pageNumber, nextUrl, tag: "li", ...extra };
  if (fragment) return htmlResponse(renderTemplate("partials/reading-list-cards", data));
  return page("pages/reading-lists", { ...data, isAdmin: viewer.user.role === "admin", maxName: MAX_LIST_NAME }, status);
}

function listPages(services: Services, guard: WebPageGuard, pages: KindPages) {
  const lists = services.readingLists;
  const { kind, path } = pages;

  /** The list's page (or, for htmx's next page, its next items). */
  async function detail(viewer: Viewer, id: string, pageNumber: number, request: Request, extra: Record<string, unknown> = {}, status = 200) {
    const list = listView(services, viewer, await lists.get(viewer.user, kind, id));
    const window = { offset: (pageNumber - 1) * GRID_PAGE_SIZE, limit: GRID_PAGE_SIZE };
    const { rows, total } = kind === "collection" ? await lists.series(viewer.user, id, window) : await lists.books(viewer.user, id, window);
    const base = `${path}/${id}`;
    const nextUrl = pageNumber * GRID_PAGE_SIZE < total ? urlWith(base, { page: pageNumber + 1 }) : null;
    const data = { title: list.name, viewer, pages, list, base, rows, total, offset: window.offset, page: pageNumber, nextUrl, tag: "li", ...extra };
    if (wantsFragment(request)) return htmlResponse(renderTemplate("partials/reading-list-items", data));
    const firstUnread = kind === "readlist" ? await firstUnreadBook(viewer, id) : null;
    // An editable ordered list's covers move with Alt+arrows: the "?" list says so.
    const shortcuts = list.editable && list.ordered ? "list-order" : undefined;
    return page("pages/reading-list", { ...data, firstUnread, maxName: MAX_LIST_NAME, shortcuts }, status);
  }

  /** The first book of the read list the viewer has not finished, else its first. */
  async function firstUnreadBook(viewer: Viewer, id: string) {
    let first = null;
    for (let offset = 0; ; offset += UNREAD_SCAN_PAGE) {
      const { rows, total } = await lists.books(viewer.user, id, { offset, limit: UNREAD_SCAN_PAGE });
      first ??= rows[0] ?? null;
      const unread = rows.find((book) => !book.progress?.completed);
      if (unread) return unread;
      if (offset + UNREAD_SCAN_PAGE >= total) return first;
    }
  }

  return new Elysia({ name: `web-${kind}-pages` })
    .use(guard)
    .get(path, ({ viewer, query, request }) => listIndex(services, viewer, pages, query.page ?? 1, { notice: noticeOf(pages, query.notice, viewer.translator) }, 200, wantsFragment(request)), {
      page: "user",
      query: PageQuery,
    })
    .post(
      path,
      async ({ viewer, body, request }) => {
        let created: ReadingListRecord;
        try {
          created = await lists.create(viewer.user, kind, { name: body.name, shared: body.shared === "on", ordered: kind === "readlist" || body.ordered === "on" });
        } catch (error) {
          return listIndex(services, viewer, pages, 1, { error: inputProblem(error, viewer.translator), name: body.name }, 422);
        }
        return redirectTo(request, `${path}/${created.id}?notice=created`);
      },
      { page: "user", body: t.Object({ name: NameField, shared: Checkbox, ordered: Checkbox, _csrf: t.Optional(t.String()) }) },
    )
    .get(`${path}/:id`, ({ viewer, params, query, request }) => detail(viewer, params.id, query.page ?? 1, request, { notice: noticeOf(pages, query.notice, viewer.translator) }), {
      page: "user",
      params: IdParams,
      query: PageQuery,
    })
    .post(
      `${path}/:id/edit`,
      async ({ viewer, params, body, request }) => {
        try {
          await lists.update(viewer.user, kind, params.id, { name: body.name, ...(kind === "collection" ? { ordered: body.ordered === "on" } : {}) });
        } catch (error) {
          return detail(viewer, params.id, 1, request, { error: inputProblem(error, viewer.translator), name: body.name }, 422);
        }
        return redirectTo(request, `${path}/${params.id}?notice=saved`);
      },
      { page: "user", params: IdParams, body: t.Object({ name: NameField, ordered: Checkbox, _csrf: t.Optional(t.String()) }) },
    )
    .post(
      `${path}/:id/delete`,
      async ({ viewer, params, request }) => {
        await lists.delete(viewer.user, kind, params.id);
        return redirectTo(request, `${path}?notice=deleted`);
      },
      { page: "user", params: IdParams, body: CsrfOnlyBody },
    )
    .post(
      `${path}/:id/items/:itemId/remove`,
      async ({ viewer, params, request }) => {
        await lists.removeItem(viewer.user, kind, params.id, params.itemId);
        return redirectTo(request, `${path}/${params.id}?notice=removed`);
      },
      { page: "user", params: ItemParams, body: CsrfOnlyBody },
    )
    .post(
      `${path}/:id/items/:itemId/move`,
      async ({ viewer, params, body, request }) => {
        const visible = await lists.itemIds(viewer.user, kind, params.id);
        const order = visible.filter((itemId) => itemId !== params.itemId);
        if (order.length === visible.length) throw notFound(`${pages.item} in this ${pages.noun}`);
        order.splice(Math.min(body.position, order.length + 1) - 1, 0, params.itemId);
        await lists.update(viewer.user, kind, params.id, { itemIds: order });
        if (wantsFragment(request)) return new Response(null, { status: 204 });
        return redirectTo(request, `${path}/${params.id}?notice=moved#item-${params.itemId}`);
      },
      { page: "user", params: ItemParams, body: t.Object({ position: t.Numeric({ minimum: 1, maximum: 100_000 }), _csrf: t.Optional(t.String()) }) },
    );
}
