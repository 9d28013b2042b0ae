/**
 * Komga's EPUB routes (gotson/komga BookController.kt, CommonBookController.kt), which Komelia's
 * EPUB reader uses (Snd-R/komga-client book/HttpBookClient.kt:207-243): the Readium WebPub
 * manifest and the resources it links to (the REST API's implementation, src/http/api/
 * publications.ts, with hrefs under the Komga prefix, metadata as komga-client decodes it, and
 * the same sandbox headers), the
 * positions list, and the progression (GET: 204 when none; PUT: 204).
 */
import { Elysia, t } from "elysia";
import { DomainError } from "../../errors";
import type { ProgressUpdate } from "../../library/progress";
import type { Services } from "../../services";
import { manifestResponse, resourceResponse } from "../api/publications";
import { publicPathPrefix } from "../client-address";
import { IdParams } from "../params";
import { komgaAuth } from "./auth";
import { instant, mediaProfileOf } from "./dto";

const detail = (summary: string) => ({ summary: `Komga: ${summary}`, tags: ["komga"] });

const POSITION_LIST_TYPE = "application/vnd.readium.position-list+json";
const PROGRESSION_TYPE = "application/vnd.readium.progression+json";

/** Komga's R2Progression, bounded (the locator is stored as the book's position). */
const Progression = t.Object({
  modified: t.String({ maxLength: 64 }),
  device: t.Object({ id: t.String({ maxLength: 255 }), name: t.String({ maxLength: 255 }) }),
  locator: t.Object({
    href: t.String({ maxLength: 2048 }),
    type: t.String({ maxLength: 255 }),
    title: t.Optional(t.Union([t.String({ maxLength: 1024 }), t.Null()])),
    locations: t.Optional(
      t.Union([
        t.Object({
          fragment: t.Optional(t.Union([t.Array(t.String({ maxLength: 1024 }), { maxItems: 16 }), t.Null()])),
          position: t.Optional(t.Union([t.Integer(), t.Null()])),
          progression: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()])),
          totalProgression: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()])),
        }),
        t.Null(),
      ]),
    ),
    text: t.Optional(t.Union([t.Record(t.String({ maxLength: 16 }), t.Union([t.String({ maxLength: 1024 }), t.Null()]), { maxProperties: 3 }), t.Null()])),
    koboSpan: t.Optional(t.Union([t.String({ maxLength: 255 }), t.Null()])),
  }),
});
type ProgressionBody = typeof Progression.static;

/** A locator's href as a path inside the book: its fragment dropped, our resource URL prefix too, decoded. */
function bookPathOf(href: string): string {
  const withoutFragment = href.split("#")[0]!;
  const marker = "/resource/";
  const path = withoutFragment.includes(marker) ? withoutFragment.slice(withoutFragment.lastIndexOf(marker) + marker.length) : withoutFragment;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export function komgaReadiumRoutes(services: Services) {
  const { publications, progress, books } = services;
  const apiBase = `${publicPathPrefix(services.config.application.base_url)}/${services.config.komga_api.prefix}`;

  /** Komga's markProgression: a page position for image books, a resource and progression for EPUB. */
  const updateOf = async (caller: Parameters<typeof books.get>[0], bookId: string, body: ProgressionBody): Promise<ProgressUpdate> => {
    const book = await books.get(caller, bookId);
    const locations = body.locator.locations ?? {};
    const device = { device: body.device.name, deviceId: body.device.id };
    if (mediaProfileOf(book.fileFormat) !== "EPUB") {
      const page = locations.position ?? undefined;
      if (page === undefined || page < 1 || page > book.pageCount) throw new DomainError("BadRequest", `locator.locations.position must be between 1 and ${book.pageCount}`);
      return { page, ...device };
    }
    const { publication } = await publications.publication(caller, bookId);
    const href = bookPathOf(body.locator.href);
    const index = publication.readingOrder.findIndex((item) => item.href.split("#")[0] === href);
    if (index < 0) throw new DomainError("BadRequest", `resource does not exist in book: ${href}`);
    if (locations.progression == null) throw new DomainError("BadRequest", "locator.locations.progression is required");
    const progression = locations.totalProgression ?? (index + locations.progression) / publication.readingOrder.length;
    const locator = { href: body.locator.href, type: body.locator.type, ...(body.locator.title ? { title: body.locator.title } : {}), locations: { ...locations } };
    return { page: index + 1, progression, locator, ...device };
  };

  return new Elysia({ name: "komga-readium-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/books/:id/manifest", ({ caller, params: { id } }) => manifestResponse(services, caller.user, id, apiBase, "komga"), {
      komga: true,
      params: IdParams,
      detail: detail("the EPUB's Readium WebPub manifest (hrefs under the Komga prefix)"),
    })
    .get("/api/v1/books/:id/resource/*", ({ caller, params: { id }, request }) => resourceResponse(services, caller.user, id, request), {
      komga: true,
      // The rest of the path (`*`) is read from the raw URL (see resourceResponse), not from the router.
      params: t.Object({ id: t.String({ format: "uuid" }) }, { additionalProperties: true }),
      detail: detail("one resource of an EPUB; sandboxed (no scripts)"),
    })
    .get(
      "/api/v1/books/:id/positions",
      async ({ caller, params: { id } }) => {
        // The spine items' sizes as the analysis recorded them (an EPUB's pages): no item is read.
        const sizes = new Map((await services.pages.list(caller.user, id)).flatMap((page) => (page.size === null ? [] : [[page.fileName, page.size] as const])));
        const { positions } = await publications.positions(caller.user, id, sizes);
        const body = {
          total: positions.length,
          positions: positions.map((position) => ({
            href: position.href,
            type: position.type,
            locations: { progression: position.progression, position: position.position, totalProgression: position.totalProgression },
          })),
        };
        return new Response(JSON.stringify(body), { headers: { "content-type": POSITION_LIST_TYPE } });
      },
      { komga: true, params: IdParams, detail: detail("the EPUB's Readium positions (one per 1024 bytes of text)") },
    )
    .get(
      "/api/v1/books/:id/progression",
      async ({ caller, params: { id }, set }) => {
        const { progress: current } = await progress.get(caller.user, id);
        if (!current) {
          set.status = 204;
          return;
        }
        const body = {
          modified: instant(current.updatedAt),
          device: { id: current.deviceId ?? "", name: current.device ?? "" },
          locator: current.locator ?? { href: "", type: "" },
        };
        return new Response(JSON.stringify(body), { headers: { "content-type": PROGRESSION_TYPE } });
      },
      { komga: true, params: IdParams, detail: detail("the caller's Readium progression; 204 when none") },
    )
    .put(
      "/api/v1/books/:id/progression",
      async ({ caller, params: { id }, body, set }) => {
        await progress.save(caller.user, id, await updateOf(caller.user, id, body));
        set.status = 204;
      },
      { komga: "progress", params: IdParams, body: Progression, detail: detail("record the caller's Readium progression (last writer wins)") },
    );
}
