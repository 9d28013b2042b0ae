/**
 * Conditional requests and cache headers for binary answers (pages, thumbnails, resources,
 * files): ETags, `If-None-Match` -> 304 (weak comparison, as RFC 9110 asks for it).
 */
import type { BunFile } from "bun";
import type { ImageFile } from "../library/covers";

/** Things that can change under the same URL (an uploaded cover, a rescanned page): always revalidated, cheaply. */
export const REVALIDATE = "private, no-cache";

export function strongEtag(value: string): string {
  return `"${value}"`;
}

/** True when the client already holds this version (`If-None-Match` lists the tag, or `*`). */
export function clientHasCurrent(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  if (!header) return false;
  if (header === etag) return true; // what a client sends back, byte for byte, nearly always
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}

export interface BinaryAnswer {
  mediaType: string;
  etag: string;
  cacheControl: string;
  /** The request headers the answer depends on besides its URL (`Accept` for pages). */
  vary?: string;
}

export function notModified(headers: Record<string, string>): Response {
  return new Response(null, { status: 304, headers });
}

/** The bytes with their validators, or 304 when the client's copy is current. */
export function binaryResponse(request: Request, body: Uint8Array | BunFile, answer: BinaryAnswer): Response {
  const headers: Record<string, string> = { etag: answer.etag, "cache-control": answer.cacheControl };
  if (answer.vary) headers.vary = answer.vary;
  if (clientHasCurrent(request, answer.etag)) return notModified(headers);
  // Bytes from plugins may view a larger or shared buffer; Blob takes exactly the view.
  return new Response(body instanceof Uint8Array ? new Blob([body as Uint8Array<ArrayBuffer>]) : body, {
    headers: { ...headers, "content-type": answer.mediaType },
  });
}

/**
 * A thumbnail or cover, revalidated by an ETag of its stored version. A 304 reads nothing; a
 * local file is sent as a lazy handle (synchronously), an object once fetched.
 */
export function imageFileResponse(request: Request, image: ImageFile): Response | Promise<Response> {
  const answer = { mediaType: image.mediaType, etag: strongEtag(image.version), cacheControl: REVALIDATE };
  if (clientHasCurrent(request, answer.etag)) return notModified({ etag: answer.etag, "cache-control": answer.cacheControl });
  const body = image.body();
  return body instanceof Promise ? body.then((bytes) => binaryResponse(request, bytes, answer)) : binaryResponse(request, body, answer);
}
