/**
 * Admin: libraries and their scans. GET/POST /admin/libraries (list with live scan progress,
 * create with the folder picker), GET/POST /admin/libraries/:id (edit, scanning config),
 * POST /admin/libraries/:id/delete, .../scan (?mode=deep), .../cancel, GET /admin/folders (the
 * picker's fragment), GET /admin/scans/events (scan events as HTML fragments for htmx's SSE
 * extension: event `scan-<libraryId>` carries that library's progress partial, event
 * `thumbnails` the line of the thumbnails still being made, which every ended scan shows).
 */
import { Elysia, t } from "elysia";
import type { ReadingDirection, SeriesStrategy } from "../../../../db";
import type { ScanEvent } from "../../../../events/scan-events";
import type { LibraryDto, LibraryInput } from "../../../../library/libraries";
import type { ScanStatusDto } from "../../../../library/scans";
import { RECENT_COUNT_MS } from "../../../../library/thumbnails";
import type { Services } from "../../../../services";
import { eventStreamResponse, SCAN_STREAM_START, sseMessage } from "../../../event-stream";
import { IdParams, ReadingDirectionSchema, SeriesStrategySchema } from "../../../params";
import { CsrfOnlyBody, inputProblem, NoticeQuery, optionalText } from "../../forms";
import { redirectTo, type WebPageGuard } from "../../page-guard";
import { htmlResponse, page, renderTemplate, type Viewer } from "../../views";
import { DIRECTION_LABELS } from "../series";

const STRATEGY_LABELS: Record<SeriesStrategy, string> = {
  series_volume: "Each folder of books is a series",
  flat: "Ignore folders (series from metadata or file names)",
  publisher_hierarchy: "Publisher / Series / books",
  calibre: "Calibre library (Author / Title / book)",
};

const NOTICES: Record<string, string> = {
  created: "The library is added.",
  "created-scanning": "The library is added and its first scan has started.",
  saved: "The changes are saved.",
  deleted: "The library is deleted from the catalogue.",
};

const LibraryForm = t.Object({
  name: t.String({ maxLength: 200 }),
  path: t.String({ maxLength: 4096 }),
  defaultReadingDirection: t.Optional(ReadingDirectionSchema),
  seriesStrategy: t.Optional(SeriesStrategySchema),
  scanNow: t.Optional(t.Literal("true")),
  scheduleEnabled: t.Optional(t.Literal("true")),
  cronSchedule: t.Optional(t.String({ maxLength: 200 })),
  defaultMode: t.Optional(t.Union([t.Literal("normal"), t.Literal("deep")])),
  scanOnStart: t.Optional(t.Literal("true")),
  _csrf: t.Optional(t.String()),
});

const ScanModeQuery = t.Object({ mode: t.Optional(t.Union([t.Literal("normal"), t.Literal("deep")])) });

const choices = { directions: DIRECTION_LABELS, strategies: STRATEGY_LABELS };

export function adminLibraryPages(services: Services, guard: WebPageGuard) {
  const { libraries, scans } = services;

  async function listPage(viewer: Viewer, extra: { notice?: string; error?: string; form?: Partial<LibraryInput> } = {}, status = 200) {
    const all = await libraries.list(viewer.user);
    const entries = await Promise.all(all.map(async (library) => ({ library, scan: await scans.status(library.id) })));
    return page(
      "pages/admin/libraries",
      { title: "Libraries", viewer, section: "/admin/libraries", libraries: entries, form: extra.form ?? {}, ...choices, ...extra },
      status,
    );
  }

  function editPage(viewer: Viewer, library: LibraryDto, form: LibraryDto, extra: { notice?: string; error?: string } = {}, status = 200) {
    const scanning = form.scanningConfig;
    return page(
      "pages/admin/library",
      { title: `Edit ${library.name}`, viewer, section: "/admin/libraries", library, form: { ...form, scanning }, ...choices, ...extra },
      status,
    );
  }

  /**
   * A scan's progress for the page's scan area; once the scan has ended, also the library's
   * series and book counts, swapped out of band into the card's head (they were read when the
   * page loaded, before the scan added anything). A library gone meanwhile keeps its old counts.
   */
  async function scanMessage(viewer: Viewer, event: ScanEvent<ScanStatusDto>): Promise<string> {
    const { libraryId, status } = event.data;
    let html = renderTemplate("partials/scan-progress", { scan: event.data });
    if (status !== "pending" && status !== "running") {
      const library = await libraries.get(viewer.user, libraryId).catch(() => undefined);
      if (library) html += renderTemplate("partials/library-counts", { library, oob: true });
    }
    return sseMessage(event.id, `scan-${libraryId}`, html);
  }

  /** The thumbnail queue's line, the same in every library's scan area (the queue is the server's). */
  function thumbnailsMessage(pending: number): string {
    return sseMessage(undefined, "thumbnails", renderTemplate("partials/thumbnails-pending", { pending }));
  }

  return new Elysia({ name: "web-admin-libraries" })
    .use(guard)
    .get("/admin/libraries", ({ viewer, query }) => listPage(viewer, { notice: NOTICES[query.notice ?? ""] }), {
      page: "admin",
      query: NoticeQuery,
    })
    .post(
      "/admin/libraries",
      async ({ viewer, body, request }) => {
        const input: LibraryInput = {
          name: body.name,
          path: body.path.trim(),
          defaultReadingDirection: body.defaultReadingDirection,
          seriesStrategy: body.seriesStrategy,
        };
        let created;
        try {
          created = await libraries.create(input);
        } catch (error) {
          return listPage(viewer, { error: inputProblem(error), form: input }, 422);
        }
        if (body.scanNow) await scans.request(created.id, undefined, "manual");
        return redirectTo(request, `/admin/libraries?notice=${body.scanNow ? "created-scanning" : "created"}`);
      },
      { page: "admin", body: LibraryForm },
    )
    .get(
      "/admin/libraries/:id",
      async ({ viewer, params, query }) => {
        const library = await libraries.get(viewer.user, params.id);
        return editPage(viewer, library, library, { notice: NOTICES[query.notice ?? ""] });
      },
      { page: "admin", params: IdParams, query: NoticeQuery },
    )
    .post(
      "/admin/libraries/:id",
      async ({ viewer, params, body, request }) => {
        const library = await libraries.get(viewer.user, params.id);
        const input: LibraryInput = {
          name: body.name,
          path: body.path.trim(),
          defaultReadingDirection: body.defaultReadingDirection,
          seriesStrategy: body.seriesStrategy,
          scanningConfig: {
            enabled: body.scheduleEnabled === "true",
            cronSchedule: optionalText(body.cronSchedule),
            defaultMode: body.defaultMode ?? "normal",
            scanOnStart: body.scanOnStart === "true",
          },
        };
        try {
          await libraries.update(library.id, input);
        } catch (error) {
          const problem = inputProblem(error);
          const attempted = {
            ...library,
            name: body.name,
            path: input.path!,
            defaultReadingDirection: (body.defaultReadingDirection ?? library.defaultReadingDirection) as ReadingDirection,
            seriesStrategy: body.seriesStrategy ?? library.seriesStrategy,
            scanningConfig: { ...library.scanningConfig, ...input.scanningConfig },
          };
          return editPage(viewer, library, attempted, { error: problem }, 422);
        }
        return redirectTo(request, `/admin/libraries/${library.id}?notice=saved`);
      },
      { page: "admin", params: IdParams, body: LibraryForm },
    )
    .post(
      "/admin/libraries/:id/delete",
      async ({ params, request }) => {
        await libraries.delete(params.id);
        return redirectTo(request, "/admin/libraries?notice=deleted");
      },
      { page: "admin", params: IdParams, body: CsrfOnlyBody },
    )
    .post(
      "/admin/libraries/:id/scan",
      async ({ params, query }) => {
        try {
          await scans.request(params.id, query.mode, "manual");
          return htmlResponse(renderTemplate("partials/notice", { message: `${query.mode === "deep" ? "Deep scan" : "Scan"} queued.` }));
        } catch (error) {
          return htmlResponse(renderTemplate("partials/alert", { message: inputProblem(error) }), 409);
        }
      },
      { page: "admin", params: IdParams, query: ScanModeQuery },
    )
    .post(
      "/admin/libraries/:id/cancel",
      async ({ params }) => {
        try {
          await scans.cancel(params.id);
          return htmlResponse(renderTemplate("partials/notice", { message: "Cancelling the scan." }));
        } catch (error) {
          return htmlResponse(renderTemplate("partials/alert", { message: inputProblem(error) }), 409);
        }
      },
      { page: "admin", params: IdParams },
    )
    .get(
      "/admin/folders",
      async ({ query }) => {
        const listing = await services.folders.list(query.path?.trim() || "/");
        return htmlResponse(renderTemplate("partials/folder-picker", { listing }));
      },
      { page: "admin", query: t.Object({ path: t.Optional(t.String({ maxLength: 4096 })) }) },
    )
    .get(
      "/admin/scans/events",
      // An admin page: admins see the server's internals (the scan counters) by definition.
      ({ request, viewer }) =>
        eventStreamResponse(
          request,
          (send, close) => {
            // In the order of the events, though an ended scan's message waits for its counts.
            let sending = Promise.resolve();
            const inOrder = (message: () => string | Promise<string>) => {
              sending = sending.then(message).then(send, () => undefined);
            };
            // First the thumbnail queue as it is now: a change announced before the stream opened
            // (after the page counted it) is not heard again. Then each change a process making
            // thumbnails announces, down to zero, when the line goes.
            inOrder(async () => thumbnailsMessage(await services.thumbnails.countPending(RECENT_COUNT_MS)));
            const fromScans = services.scanEvents.subscribe((event: ScanEvent<ScanStatusDto>) => inOrder(() => scanMessage(viewer, event)), close);
            const fromThumbnails = services.thumbnailEvents.subscribe(({ pending }) => inOrder(() => thumbnailsMessage(pending)));
            return () => {
              fromScans();
              fromThumbnails();
            };
          },
          SCAN_STREAM_START,
        ),
      { page: "admin" },
    );
}
