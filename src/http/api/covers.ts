/**
 * Thumbnails of books and series, and the covers admins upload for them. Uploads are
 * multipart with the image in the field `file`; the body is read with a running count and
 * refused (413) as soon as it passes the limit, so an oversized upload is never buffered whole.
 */
import { Elysia } from "elysia";
import type { CoverOwner } from "../../db";
import { DomainError } from "../../errors";
import type { Caller } from "../../library/books";
import { coverTooLarge } from "../../library/covers";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { imageFileResponse } from "../conditional";
import { IdParams } from "../params";
import { readBodyAtMost } from "../request-body";
import { answers, bytesOf, documentedAnswers, mediaAnswer, NoContent } from "./schemas";

/** Room for the multipart boundaries and part headers around the image itself. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

const THUMBNAIL_ANSWERS = documentedAnswers({ 200: mediaAnswer("The image", bytesOf("image/jpeg", "image/png", "image/webp", "image/gif", "image/avif")), 304: mediaAnswer("Not modified") }, 404);

export function coverRoutes(services: Services) {
  const { covers } = services;
  const maxBytes = services.config.files.max_cover_upload_bytes;

  const coverRoutesFor = (owner: CoverOwner, prefix: string) =>
    new Elysia({ name: `${owner}-cover-routes`, prefix })
      .use(authPlugin(services))
      .post(
        "/:id/cover",
        async ({ caller, params, request, set }) => {
          await covers.upload(caller.user, owner, params.id, await uploadedFile(request, maxBytes));
          set.status = 204;
        },
        {
          auth: "admin",
          params: IdParams,
          parse: "none",
          response: answers({ 204: NoContent }, 404, 413),
          detail: { summary: `Upload a ${owner} cover (multipart field "file"; image only; size limit)`, tags: ["covers"] },
        },
      )
      .delete(
        "/:id/cover",
        async ({ caller, params, set }) => {
          await covers.remove(caller.user, owner, params.id);
          set.status = 204;
        },
        { auth: "admin", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: `Remove the uploaded ${owner} cover`, tags: ["covers"] } },
      );

  return new Elysia({ name: "cover-routes" })
    .use(authPlugin(services))
    .get("/api/v1/books/:id/thumbnail", thumbnailHandler(covers, "book"), {
      auth: "user",
      params: IdParams,
      detail: { summary: "The book's thumbnail; an uploaded cover wins", tags: ["covers"], responses: THUMBNAIL_ANSWERS },
    })
    .get("/api/v1/series/:id/thumbnail", thumbnailHandler(covers, "series"), {
      auth: "user",
      params: IdParams,
      detail: { summary: "The series' uploaded cover, else its first book's thumbnail", tags: ["covers"], responses: THUMBNAIL_ANSWERS },
    })
    .use(coverRoutesFor("book", "/api/v1/books"))
    .use(coverRoutesFor("series", "/api/v1/series"));
}

/** What a thumbnail route's handler is given: the signed-in caller, the id, and the request (for its validators). */
interface ThumbnailRequest {
  caller: { user: Caller };
  params: { id: string };
  request: Request;
}

/**
 * The handler of a book's or series' thumbnail route, for each slice that serves thumbnails
 * (here, OPDS in src/http/opds/files.ts and Komga in src/http/komga): the image with its
 * validators, or 304 when the client has it; an uploaded cover wins, and a series without one
 * shows its first book's.
 */
export function thumbnailHandler(covers: Services["covers"], owner: CoverOwner) {
  return async ({ caller, params, request }: ThumbnailRequest): Promise<Response> =>
    imageFileResponse(request, await covers.thumbnail(caller.user, owner, params.id));
}

/** The `file` part of a multipart body no larger than the limit (plus multipart framing); the web's edit pages read theirs so too. */
export async function uploadedFile(request: Request, maxBytes: number): Promise<Uint8Array> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    throw new DomainError("BadRequest", 'send the image as multipart/form-data in the field "file"', { fields: { file: "is required" } });
  }
  const body = await readBodyAtMost(request, maxBytes + MULTIPART_OVERHEAD_BYTES, () => coverTooLarge(maxBytes));
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new DomainError("BadRequest", "the request body is not valid multipart/form-data");
  }
  const file = form.get("file");
  if (!(file instanceof Blob)) throw new DomainError("BadRequest", 'the field "file" with the image is missing', { fields: { file: "is required" } });
  if (file.size > maxBytes) throw coverTooLarge(maxBytes);
  return new Uint8Array(await file.arrayBuffer());
}
