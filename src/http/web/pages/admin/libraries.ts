/**
 * Admin: libraries and their scans. GET/POST /admin/libraries (list with live scan progress,
 * create with the folder picker; after a create with a scan, ?library= names the library whose
 * first scan the notice follows), GET/POST /setup/library (the first run's second step, the same
 * form), GET/POST /admin/libraries/:id (edit, scanning config),
 * POST /admin/libraries/:id/delete, .../scan (?mode=deep), .../cancel, GET /admin/folders (the
 * picker's fragment), GET /admin/scans/events (scan events as HTML fragments for htmx's SSE
 * extension: event `scan-<libraryId>` carries that library's progress partial, `scan-notice-<libraryId>`
 * the notice following a first scan, event `thumbnails` the line of the thumbnails still being
 * made, which every ended scan shows; the stream opens with the thumbnails line and every
 * library's scan as it is).
 */
import { Elysia, t, type Static } from "elysia";
import type { ReadingDirection, SeriesStrategy } from "../../../../db";
import type { ScanEvent } from "../../../../events/scan-events";
import type { LibraryDto, LibraryInput } from "../../../../library/libraries";
import type { ScanStatusDto } from "../../../../library/scans";
import { RECENT_COUNT_MS } from "../../../../library/thumbnails";
import type { Services } from "../../../../services";
import { eventStreamResponse, SCAN_STREAM_START, sseMessage } from "../../../event-stream";
import { IdParams, ReadingDirectionSchema, SeriesStrategySchema } from "../../../params";
import { CsrfOnlyBody, formProblem, inputProblem, noticeMessage, NoticeQuery, optionalText, type FormProblem } from "../../forms";
import { redirectTo, type WebPageGuard } from "../../page-guard";
import { htmlResponse, page, renderTemplate, type Viewer } from "../../views";
import type { Translator } from "../../../../i18n/translator";

const DIRECTIONS: readonly ReadingDirection[] = ["ltr", "rtl", "ttb", "webtoon"];
const STRATEGIES: readonly SeriesStrategy[] = ["series_volume", "flat", "publisher_hierarchy", "calibre"];

/** The messages of the notices `?notice=` names. */
const NOTICES: Record<string, string> = {
  created: "libraries.notice.created",
  "created-scanning": "libraries.notice.createdScanning",
  saved: "libraries.notice.saved",
  deleted: "libraries.notice.deleted",
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

/** After adding a library with a scan, the list follows that first scan in its notice. */
const ListQuery = t.Object({ ...NoticeQuery.properties, library: t.Optional(t.String({ maxLength: 64 })) });

const ScanModeQuery = t.Object({ mode: t.Optional(t.Union([t.Literal("normal"), t.Literal("deep")])) });

/** The form's selects: each reading direction and series strategy with its label. */
const choices = ({ t }: Translator) => ({
  directions: Object.fromEntries(DIRECTIONS.map((direction) => [direction, t(`direction.${direction}`)])),
  strategies: Object.fromEntries(STRATEGIES.map((strategy) => [strategy, t(`libraries.strategy.${strategy}`)])),
});

export function adminLibraryPages(services: Services, guard: WebPageGuard) {
  const { libraries, scans } = services;

  /** What a form that was refused shows: the problem, a sentence per field, and what was typed. */
  type Refused = { error?: string; fieldErrors?: FormProblem["fields"]; form?: Partial<LibraryInput> & { scanNow?: boolean } };
  const refused = (problem: FormProblem, form: Refused["form"]): Refused => ({ error: problem.message, fieldErrors: problem.fields, form });

  async function listPage(viewer: Viewer, extra: { notice?: string; firstScanOf?: string } & Refused = {}, status = 200) {
    const all = await libraries.list(viewer.user);
    const entries = await Promise.all(all.map(async (library) => ({ library, scan: await scans.status(library.id) })));
    const firstScan = entries.find((entry) => entry.library.id === extra.firstScanOf)?.scan;
    return page(
      "pages/admin/libraries",
      { title: viewer.translator.t("libraries.title"), viewer, section: "/admin/libraries", libraries: entries, firstScan, ...choices(viewer.translator), ...extra, form: extra.form ?? {} },
      status,
    );
  }

  function setupLibraryPage(viewer: Viewer, extra: Refused = {}, status = 200) {
    return page("pages/setup-library", { title: viewer.translator.t("setupLibrary.title"), viewer, ...choices(viewer.translator), ...extra, form: extra.form ?? {} }, status);
  }

  /**
   * Adds the library a form describes and starts its scan when asked; the answer is the page to
   * go to (the libraries list, following that first scan) or, for a refused form, undefined and
   * the problem for `again`, which shows the form again with what was typed.
   */
  async function createFromForm(body: Static<typeof LibraryForm>, request: Request, translator: Translator, again: (refusal: Refused) => Promise<Response> | Response) {
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
      return again(refused(formProblem(error, translator), { ...input, scanNow: body.scanNow === "true" }));
    }
    if (!body.scanNow) return redirectTo(request, "/admin/libraries?notice=created");
    await scans.request(created.id, undefined, "manual");
    return redirectTo(request, `/admin/libraries?notice=created-scanning&library=${created.id}`);
  }

  function editPage(viewer: Viewer, library: LibraryDto, form: LibraryDto, extra: { notice?: string; error?: string; fieldErrors?: FormProblem["fields"] } = {}, status = 200) {
    const scanning = form.scanningConfig;
    return page(
      "pages/admin/library",
      { title: viewer.translator.t("library.title", { name: library.name }), viewer, section: "/admin/libraries", library, form: { ...form, scanning }, ...choices(viewer.translator), ...extra },
      status,
    );
  }

  /**
   * A scan's progress for the page's scan area; once the scan has ended, also the library's
   * series and book counts, swapped out of band into the card's head (they were read when the
   * page loaded, before the scan added anything). A library gone meanwhile keeps its old counts.
   */
  async function scanMessage(viewer: Viewer, event: Pick<ScanEvent<ScanStatusDto>, "data"> & { id?: number }): Promise<string> {
    const { libraryId, status } = event.data;
    let html = renderTemplate("partials/scan-progress", { viewer, scan: event.data });
    if (status !== "pending" && status !== "running") {
      const library = await libraries.get(viewer.user, libraryId).catch(() => undefined);
      if (library) html += renderTemplate("partials/library-counts", { viewer, library, oob: true });
    }
    // The same state for the notice that follows a library's first scan (a page without it ignores the event).
    return sseMessage(event.id, `scan-${libraryId}`, html) + sseMessage(undefined, `scan-notice-${libraryId}`, renderTemplate("partials/scan-notice", { viewer, scan: event.data }));
  }

  /** The thumbnail queue's line, the same in every library's scan area (the queue is the server's). */
  function thumbnailsMessage(viewer: Viewer, pending: number): string {
    return sseMessage(undefined, "thumbnails", renderTemplate("partials/thumbnails-pending", { viewer, pending }));
  }

  return new Elysia({ name: "web-admin-libraries" })
    .use(guard)
    .get("/admin/libraries", ({ viewer, query }) => listPage(viewer, { notice: noticeMessage(NOTICES, query.notice, viewer.translator), firstScanOf: query.library }), {
      page: "admin",
      query: ListQuery,
    })
    .post("/admin/libraries", ({ viewer, body, request }) => createFromForm(body, request, viewer.translator, (refusal) => listPage(viewer, refusal, 422)), {
      page: "admin",
      body: LibraryForm,
    })
    // The first run's second step (the first, /setup, made the admin): the first library.
    .get("/setup/library", ({ viewer }) => setupLibraryPage(viewer), { page: "admin" })
    .post("/setup/library", ({ viewer, body, request }) => createFromForm(body, request, viewer.translator, (refusal) => setupLibraryPage(viewer, refusal, 422)), {
      page: "admin",
      body: LibraryForm,
    })
    .get(
      "/admin/libraries/:id",
      async ({ viewer, params, query }) => {
        const library = await libraries.get(viewer.user, params.id);
        return editPage(viewer, library, library, { notice: noticeMessage(NOTICES, query.notice, viewer.translator) });
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
          const problem = formProblem(error, viewer.translator);
          const attempted = {
            ...library,
            name: body.name,
            path: input.path!,
            defaultReadingDirection: (body.defaultReadingDirection ?? library.defaultReadingDirection) as ReadingDirection,
            seriesStrategy: body.seriesStrategy ?? library.seriesStrategy,
            scanningConfig: { ...library.scanningConfig, ...input.scanningConfig },
          };
          return editPage(viewer, library, attempted, { error: problem.message, fieldErrors: problem.fields }, 422);
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
      async ({ viewer, params, query }) => {
        const { t } = viewer.translator;
        try {
          await scans.request(params.id, query.mode, "manual");
          return htmlResponse(renderTemplate("partials/notice", { viewer, message: t(query.mode === "deep" ? "libraries.deepScanQueued" : "libraries.scanQueued") }));
        } catch (error) {
          return htmlResponse(renderTemplate("partials/alert", { viewer, message: inputProblem(error, viewer.translator) }), 409);
        }
      },
      { page: "admin", params: IdParams, query: ScanModeQuery },
    )
    .post(
      "/admin/libraries/:id/cancel",
      async ({ viewer, params }) => {
        try {
          await scans.cancel(params.id);
          return htmlResponse(renderTemplate("partials/notice", { viewer, message: viewer.translator.t("libraries.cancelling") }));
        } catch (error) {
          return htmlResponse(renderTemplate("partials/alert", { viewer, message: inputProblem(error, viewer.translator) }), 409);
        }
      },
      { page: "admin", params: IdParams },
    )
    .get(
      "/admin/folders",
      async ({ viewer, query }) => {
        const path = query.path?.trim();
        // No folder typed yet: the likely places to start from.
        if (!path) return htmlResponse(renderTemplate("partials/folder-picker", { viewer, places: await services.folders.places() }));
        return htmlResponse(renderTemplate("partials/folder-picker", { viewer, listing: await services.folders.list(path) }));
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
            inOrder(async () => thumbnailsMessage(viewer, await services.thumbnails.countPending(RECENT_COUNT_MS)));
            // Then each library's scan as it is now (without an id: the events' numbering goes
            // on): a scan that moved on, or ended, between the page and the stream is not missed
            // (a first scan, started just before the page it is followed on, often is).
            inOrder(async () => {
              const all = await libraries.list(viewer.user);
              const states = await Promise.all(all.map((library) => scans.status(library.id)));
              return (await Promise.all(states.map((data) => scanMessage(viewer, { data })))).join("");
            });
            const fromScans = services.scanEvents.subscribe((event: ScanEvent<ScanStatusDto>) => inOrder(() => scanMessage(viewer, event)), close);
            const fromThumbnails = services.thumbnailEvents.subscribe(({ pending }) => inOrder(() => thumbnailsMessage(viewer, pending)));
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
