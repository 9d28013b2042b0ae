/**
 * The answer for a page the page service located, the same on every page route (REST, Komga,
 * OPDS-PSE): a range of the book's file, or the bytes read, rendered or converted.
 *
 * Page URLs are not immutable: a rescan of a rewritten file changes the content under the same
 * URL. So pages are revalidated on every use (`no-cache`) with a strong ETag of the file's
 * version (the scan's hash, or for a file rewritten since its size and modification time), and
 * a 304 is answered from the catalogue and a stat of the file, without opening the book.
 *
 * A browser's prefetch (`Sec-Purpose: prefetch`) of a page that must be read or rendered while
 * another prefetch is being read is answered 204 with `no-store` (src/library/pages.ts).
 *
 * A JPEG XL page goes as it is only to a client whose Accept names image/jxl (with a quality
 * above zero); every other client (browsers without JPEG XL send "image/*" or "*\/*") gets it as
 * JPEG. The ETag tells the two answers apart, and `Vary: Accept` tells caches.
 */
import type { PageImage } from "../formats/contract";
import { JXL_MEDIA_TYPE } from "../formats/jxl";
import { acceptNames } from "./accept";
import type { PageRef, PageService } from "../library/pages";
import { binaryResponse, clientHasCurrent, notModified, REVALIDATE, strongEtag } from "./conditional";

interface PageAnswerOptions {
  /** Tells apart answers of the same page in another form (a Komga conversion) in the ETag. */
  variant?: string;
  /** The image to send, for a route that converts the page; else the page as stored or rendered. */
  read?: () => Promise<PageImage>;
}

/** Types a JPEG XL page is converted to when the client does not take it: JPEG. */
const WITHOUT_JXL = ["image/jpeg"] as const;

export async function pageResponse(request: Request, pages: PageService, page: PageRef, options: PageAnswerOptions = {}): Promise<Response> {
  const takesJxl = acceptNames(request, JXL_MEDIA_TYPE);
  const answer = { etag: strongEtag(`${page.tag}${options.variant ?? ""}${takesJxl ? "-jxl" : ""}`), cacheControl: REVALIDATE, vary: "Accept" };
  // Revalidation is answered before anything is read: the book is not opened.
  if (clientHasCurrent(request, answer.etag)) return notModified({ etag: answer.etag, "cache-control": answer.cacheControl, vary: answer.vary });
  if (options.read) {
    const image = await options.read();
    return binaryResponse(request, image.bytes, { ...answer, mediaType: image.mediaType });
  }
  // A browser's prefetch (a book's page names the reader's first screen) may be declined when
  // the server is already reading ahead (PageService.content): "nothing now", never stored.
  const content = await pages.content(page, { ahead: request.headers.get("sec-purpose")?.includes("prefetch") });
  if (!content) return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
  const mediaType = content.kind === "file" ? content.mediaType : content.image.mediaType;
  if (mediaType === JXL_MEDIA_TYPE && !takesJxl) {
    const image = await pages.readAs(page, WITHOUT_JXL);
    return binaryResponse(request, image.bytes, { ...answer, mediaType: image.mediaType });
  }
  return content.kind === "file"
    ? binaryResponse(request, Bun.file(content.path).slice(content.offset, content.offset + content.length), { ...answer, mediaType: content.mediaType })
    : binaryResponse(request, content.image.bytes, { ...answer, mediaType: content.image.mediaType });
}
