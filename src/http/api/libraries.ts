/**
 * Libraries and their scans: CRUD, scan requests, status, cancel, purge of soft-deleted books.
 * Starting and cancelling scans is for admins; others see a scan's state without its details.
 * Request bodies accept the spec's snake_case names and camelCase alike (contract, Conventions).
 */
import { Elysia, t, type Static } from "elysia";
import type { LibraryInput } from "../../library/libraries";
import { toScanStateDto } from "../../library/scans";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { IdParams, ReadingDirectionSchema, SeriesStrategySchema } from "../params";
import { answers, LibraryDtoSchema, NoContent, ScanStatusSchema, Shape, Integer } from "./schemas";

const Mode = t.Union([t.Literal("normal"), t.Literal("deep")]);
const Cron = t.Union([t.String({ maxLength: 200 }), t.Null()]);
/** Polling for network mounts without file-system events: every 1 s .. 1 day, or null (never). */
const PollSeconds = t.Union([t.Integer({ minimum: 1, maximum: 86_400 }), t.Null()]);

const ScanningConfigBody = t.Object({
  enabled: t.Optional(t.Boolean()),
  cronSchedule: t.Optional(Cron),
  cron_schedule: t.Optional(Cron),
  defaultMode: t.Optional(Mode),
  default_mode: t.Optional(Mode),
  scanOnStart: t.Optional(t.Boolean()),
  scan_on_start: t.Optional(t.Boolean()),
  watch: t.Optional(t.Boolean()),
  pollSeconds: t.Optional(PollSeconds),
  poll_seconds: t.Optional(PollSeconds),
});

const LibraryBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  path: t.Optional(t.String({ minLength: 1, maxLength: 4096 })),
  defaultReadingDirection: t.Optional(ReadingDirectionSchema),
  default_reading_direction: t.Optional(ReadingDirectionSchema),
  seriesStrategy: t.Optional(SeriesStrategySchema),
  series_strategy: t.Optional(SeriesStrategySchema),
  scanningConfig: t.Optional(ScanningConfigBody),
  scanning_config: t.Optional(ScanningConfigBody),
});


function libraryInput(body: Static<typeof LibraryBody>): LibraryInput {
  const scanning = body.scanningConfig ?? body.scanning_config;
  const input: LibraryInput = {
    name: body.name,
    path: body.path,
    defaultReadingDirection: body.defaultReadingDirection ?? body.default_reading_direction,
    seriesStrategy: body.seriesStrategy ?? body.series_strategy,
  };
  if (scanning) {
    const config: NonNullable<LibraryInput["scanningConfig"]> = {};
    const cron = scanning.cronSchedule !== undefined ? scanning.cronSchedule : scanning.cron_schedule;
    if (scanning.enabled !== undefined) config.enabled = scanning.enabled;
    if (cron !== undefined) config.cronSchedule = cron;
    const mode = scanning.defaultMode ?? scanning.default_mode;
    if (mode) config.defaultMode = mode;
    const onStart = scanning.scanOnStart ?? scanning.scan_on_start;
    if (onStart !== undefined) config.scanOnStart = onStart;
    if (scanning.watch !== undefined) config.watch = scanning.watch;
    const poll = scanning.pollSeconds !== undefined ? scanning.pollSeconds : scanning.poll_seconds;
    if (poll !== undefined) config.pollSeconds = poll;
    input.scanningConfig = config;
  }
  return input;
}

export function libraryRoutes(services: Services) {
  const { libraries, scans } = services;
  return new Elysia({ name: "library-routes", prefix: "/api/v1/libraries" })
    .use(authPlugin(services))
    .get("", ({ caller }) => libraries.list(caller.user), { auth: "user", response: answers({ 200: t.Array(LibraryDtoSchema) }), detail: { summary: "List libraries", tags: ["libraries"] } })
    .post(
      "",
      async ({ body, set }) => {
        const library = await libraries.create(libraryInput(body));
        set.status = 201;
        return library;
      },
      { auth: "admin", body: LibraryBody, response: answers({ 201: LibraryDtoSchema }, 409, 422), detail: { summary: "Create a library", tags: ["libraries"] } },
    )
    .get("/:id", ({ caller, params }) => libraries.get(caller.user, params.id), {
      auth: "user",
      params: IdParams,
      response: answers({ 200: LibraryDtoSchema }, 404),
      detail: { summary: "Read a library", tags: ["libraries"] },
    })
    .patch("/:id", ({ params, body }) => libraries.update(params.id, libraryInput(body)), {
      auth: "admin",
      params: IdParams,
      body: LibraryBody,
      response: answers({ 200: LibraryDtoSchema }, 404, 409, 422),
      detail: { summary: "Change a library", tags: ["libraries"] },
    })
    .delete(
      "/:id",
      async ({ params, set }) => {
        await libraries.delete(params.id);
        set.status = 204;
      },
      { auth: "admin", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Delete a library (never its files)", tags: ["libraries"] } },
    )
    .post(
      "/:id/scan",
      async ({ params, query, set }) => {
        const status = await scans.request(params.id, query.mode, "manual");
        set.status = 202;
        return status;
      },
      {
        auth: "admin",
        params: IdParams,
        query: t.Object({ mode: t.Optional(Mode) }),
        response: answers({ 202: ScanStatusSchema }, 404, 409),
        detail: { summary: "Start a scan (normal or deep); admins only", tags: ["scans"] },
      },
    )
    .get(
      "/:id/scan-status",
      async ({ caller, params }) => {
        const status = await scans.status(params.id);
        return services.access.seesServerInternals(caller.user) ? status : toScanStateDto(status);
      },
      {
        auth: "user",
        params: IdParams,
        response: answers({ 200: ScanStatusSchema }, 404),
        detail: { summary: "Status of the library's latest scan (state and times only for non-admins)", tags: ["scans"] },
      },
    )
    .post(
      "/:id/scan/cancel",
      async ({ params, set }) => {
        const status = await scans.cancel(params.id);
        set.status = 202;
        return status;
      },
      { auth: "admin", params: IdParams, response: answers({ 202: ScanStatusSchema }, 404, 409), detail: { summary: "Cancel the pending or running scan; admins only", tags: ["scans"] } },
    )
    .post(
      "/:id/scan/confirm-removals",
      async ({ params, set }) => {
        const status = await scans.confirmRemovals(params.id);
        set.status = 202;
        return status;
      },
      {
        auth: "admin",
        params: IdParams,
        response: answers({ 202: ScanStatusSchema }, 404, 409),
        detail: {
          summary: "Confirm the removals a suspicious scan held back: starts a scan that may remove them",
          tags: ["scans"],
        },
      },
    )
    .delete("/:id/deleted-books", async ({ params }) => ({ removed: await libraries.purgeDeletedBooks(params.id) }), {
      auth: "admin",
      params: IdParams,
      response: answers({ 200: Shape({ removed: Integer() }) }, 404),
      detail: { summary: "Permanently delete the library's soft-deleted books", tags: ["libraries"] },
    });
}
