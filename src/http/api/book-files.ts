/**
 * The book's original file for download, with single-range support (resumed downloads,
 * readers that fetch parts of a file). The file is streamed from disk, never buffered.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { decideRange } from "../byte-ranges";
import { clientHasCurrent, notModified, REVALIDATE, strongEtag } from "../conditional";
import { errorResponse } from "../errors";
import { IdParams } from "../params";
import type { BookFile } from "../../library/book-files";
import { bytesOf, documentedAnswers, mediaAnswer } from "./schemas";


export function bookFileRoutes(services: Services) {
  return new Elysia({ name: "book-file-routes", prefix: "/api/v1/books" })
    .use(authPlugin(services))
    .get(
      "/:id/file",
      async ({ caller, params, request }) => bookFileResponse(request, await services.bookFiles.file(caller.user, params.id)),
      { auth: "user", params: IdParams, detail: {
        summary: "Download the original file (HTTP Range supported)",
        tags: ["books"],
        responses: documentedAnswers(
          {
            200: mediaAnswer("The file", bytesOf("application/octet-stream")),
            206: mediaAnswer("The requested range", bytesOf("application/octet-stream")),
            304: mediaAnswer("Not modified"),
          },
          404,
          416,
        ),
      },
    },
    );
}

/** The file with its validators; a single range when asked for (206), 416 outside it. */
export function bookFileResponse(request: Request, file: BookFile): Response {
  const etag = strongEtag(file.version);
  const headers: Record<string, string> = {
    "accept-ranges": "bytes",
    etag,
    "last-modified": file.modifiedAt.toUTCString(),
    "cache-control": REVALIDATE,
  };
  if (clientHasCurrent(request, etag)) return notModified(headers);
  const decision = decideRange(request, file.size, { etag, lastModified: file.modifiedAt });
  if (decision.kind === "unsatisfiable") {
    return errorResponse(
      416,
      { error: "RangeNotSatisfiable", message: `the requested range is outside the file's ${file.size} bytes` },
      { ...headers, "content-range": `bytes */${file.size}` },
    );
  }
  const content = { ...headers, "content-type": file.mediaType, "content-disposition": attachment(file.fileName) };
  if (decision.kind === "whole") return new Response(Bun.file(file.path), { headers: content });
  const { start, end } = decision.range;
  return new Response(Bun.file(file.path).slice(start, end + 1), {
    status: 206,
    headers: { ...content, "content-range": `bytes ${start}-${end}/${file.size}` },
  });
}

/**
 * `attachment` with an ASCII-only `filename` for old clients (accents dropped, anything else
 * replaced) and the exact name as RFC 5987 `filename*` for everyone else.
 */
export function attachment(fileName: string): string {
  const ascii = fileName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
