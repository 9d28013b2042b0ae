/** The answer for a page the page service located: a range of the book's file, or the bytes read or rendered. */
import type { PageRef, PageService } from "../library/pages";
import { binaryResponse } from "./conditional";

export async function pageResponse(request: Request, pages: PageService, page: PageRef, answer: { etag: string; cacheControl: string }): Promise<Response> {
  const content = await pages.content(page);
  return content.kind === "file"
    ? binaryResponse(request, Bun.file(content.path).slice(content.offset, content.offset + content.length), { ...answer, mediaType: content.mediaType })
    : binaryResponse(request, content.image.bytes, { ...answer, mediaType: content.image.mediaType });
}
