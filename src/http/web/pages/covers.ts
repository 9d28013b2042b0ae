/**
 * Cover images for the pages: GET /covers/books/:id and /covers/series/:id answer the same
 * thumbnail as the API, and a neutral placeholder when none can be made (a broken book), so a
 * grid never shows a broken image nor logs a failed request in the browser's console.
 */
import { Elysia } from "elysia";
import { DomainError } from "../../../errors";
import type { ImageFile } from "../../../library/covers";
import type { Services } from "../../../services";
import { imageFileResponse } from "../../conditional";
import { IdParams } from "../../params";
import { embeddedAsset } from "../assets";
import type { WebPageGuard } from "../page-guard";

const placeholder = embeddedAsset("icons/no-cover.svg");

async function orPlaceholder(request: Request, image: Promise<ImageFile>): Promise<Response> {
  try {
    return await imageFileResponse(request, await image);
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === "NotFound")) throw error;
    return new Response(placeholder.body, { headers: { "content-type": placeholder.contentType, "cache-control": "private, no-cache" } });
  }
}

export function coverImages(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-cover-images" })
    .use(guard)
    .get("/covers/books/:id", ({ viewer, params, request }) => orPlaceholder(request, services.covers.thumbnail(viewer.user, "book", params.id)), {
      page: "user",
      params: IdParams,
    })
    .get("/covers/series/:id", ({ viewer, params, request }) => orPlaceholder(request, services.covers.thumbnail(viewer.user, "series", params.id)), {
      page: "user",
      params: IdParams,
    });
}
