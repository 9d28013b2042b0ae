/** EPUB for the web reader: the Readium manifest, and the book's resources one by one. */
import { Elysia, t } from "elysia";
import type { Caller } from "../../library/books";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { publicPathPrefix } from "../client-address";
import { binaryResponse, REVALIDATE, strongEtag } from "../conditional";
import { toWebPubManifest, WEBPUB_MEDIA_TYPE, type ManifestDialect } from "./webpub-manifest";
import { IdParams } from "../params";
import { BOOK_RESOURCE_HEADERS } from "../security-headers";
import { bytesOf, documentedAnswers, mediaAnswer } from "./schemas";

const RESOURCE_PREFIX = "/resource/";

/**
 * The book's Readium manifest; `apiBase` is the path before `/api/v1/books/...` its hrefs lead
 * to (the REST API's, or the Komga API's under its prefix).
 */
export async function manifestResponse(
  services: Pick<Services, "publications">,
  caller: Caller,
  bookId: string,
  apiBase: string,
  dialect: ManifestDialect = "readium",
): Promise<Response> {
  const { book, publication } = await services.publications.publication(caller, bookId);
  return new Response(JSON.stringify(toWebPubManifest(book.id, book.title, publication, apiBase, dialect)), {
    headers: { "content-type": `${WEBPUB_MEDIA_TYPE}; charset=utf-8`, "cache-control": REVALIDATE },
  });
}

/** One resource of the book named by the rest of the URL after `/resource/`, sandboxed (BOOK_RESOURCE_HEADERS). */
export async function resourceResponse(services: Pick<Services, "publications">, caller: Caller, bookId: string, request: Request): Promise<Response> {
  const path = resourcePathOf(request);
  const { version, resource } = await services.publications.resource(caller, bookId, path);
  const response = binaryResponse(request, resource.bytes, {
    mediaType: resource.mediaType,
    etag: strongEtag(`${version}:${encodeURIComponent(path)}`),
    cacheControl: REVALIDATE,
  });
  for (const [name, value] of Object.entries(BOOK_RESOURCE_HEADERS)) response.headers.set(name, value);
  return response;
}

export function publicationRoutes(services: Services) {
  return new Elysia({ name: "publication-routes", prefix: "/api/v1/books" })
    .use(authPlugin(services))
    .get(
      "/:id/manifest",
      ({ caller, params }) => manifestResponse(services, caller.user, params.id, publicPathPrefix(services.config.application.base_url)),
      {
        auth: "user",
        params: IdParams,
        detail: {
          summary: "Readium Web Publication Manifest of an EPUB",
          tags: ["reader"],
          responses: documentedAnswers({ 200: mediaAnswer("The manifest (Readium's own schema)", { [WEBPUB_MEDIA_TYPE]: { type: "object" } }) }, 404, 422),
        },
      },
    )
    .get(
      "/:id/resource/*",
      ({ caller, params, request }) => resourceResponse(services, caller.user, params.id, request),
      {
        auth: "user",
        // The rest of the path (`*`) is read from the raw URL below, not from the router.
        params: t.Object({ id: t.String({ format: "uuid" }) }, { additionalProperties: true }),
        detail: {
          summary: "One resource of an EPUB by its path inside the book; sandboxed (no scripts), type from the server's table",
          tags: ["reader"],
          responses: documentedAnswers({ 200: mediaAnswer("The resource, of its own media type", bytesOf("*/*")), 304: mediaAnswer("Not modified") }, 404),
        },
      },
    );
}

/**
 * The resource path, decoded once, from the raw request URL: decoding is done here rather than
 * trusted to the router, so `%2e%2e` or `%2f` arrive as the `..` and `/` they stand for and are
 * refused by the path check, and malformed escapes name no resource at all.
 */
function resourcePathOf(request: Request): string {
  const { pathname } = new URL(request.url);
  const raw = pathname.slice(pathname.indexOf(RESOURCE_PREFIX) + RESOURCE_PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return "";
  }
}
