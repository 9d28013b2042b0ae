/**
 * The files OPDS feeds link to: a book's original file (acquisition), and book and series
 * thumbnails. They answer as the REST routes do (the same handlers and responses: ranges, validators),
 * under /opds, because an OPDS reader that sends its password only after a challenge needs the
 * `WWW-Authenticate: Basic` of a 401 to ask for it, and the REST API's 401s carry no challenge
 * (docs/api.md, Conventions).
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { bookFileResponse } from "../api/book-files";
import { thumbnailHandler } from "../api/covers";
import { authPlugin } from "../auth-plugin";
import { IdParams } from "../params";
import { OPDS_FILES_ROOT } from "./urls";

export function opdsFileRoutes(services: Services) {
  const { bookFiles, covers } = services;
  const detail = (summary: string) => ({ summary: `OPDS: ${summary} (401s carry the Basic challenge)`, tags: ["opds"] });
  return new Elysia({ name: "opds-files", prefix: OPDS_FILES_ROOT })
    .use(authPlugin(services, { basicChallenge: true }))
    .get("/books/:id/file", async ({ caller, params, request }) => bookFileResponse(request, await bookFiles.file(caller.user, params.id)), {
      auth: "user",
      params: IdParams,
      detail: detail("a book's original file (HTTP Range supported)"),
    })
    .get("/books/:id/thumbnail", thumbnailHandler(covers, "book"), {
      auth: "user",
      params: IdParams,
      detail: detail("a book's thumbnail"),
    })
    .get("/series/:id/thumbnail", thumbnailHandler(covers, "series"), {
      auth: "user",
      params: IdParams,
      detail: detail("a series' thumbnail"),
    });
}
