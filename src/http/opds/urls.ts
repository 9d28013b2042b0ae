/**
 * Absolute URLs for OPDS documents. Readers resolve relative links inconsistently, so every
 * link is absolute, built from `application.base_url` when it is set, else from the origin the
 * request was addressed to (with X-Forwarded-Proto/-Host only under `trust_proxy`): see
 * client-address.ts, the one place that decides it.
 */
import type { Config } from "../../config/schema";
import { publicOrigin } from "../client-address";
import { DEFAULT_PAGE_SIZE } from "../paging";
import type { FeedRef } from "./catalog";

export type OpdsVersion = "v1.2" | "v2";

/** Where each OPDS version lives; feed paths (FeedRef.path) are relative to it. */
export const OPDS_ROOTS: Record<OpdsVersion, string> = { "v1.2": "/opds/v1.2", v2: "/opds/v2" };

/** Where both versions' feeds link for files and thumbnails (./files.ts). */
export const OPDS_FILES_ROOT = "/opds";

/** The PSE page route, relative to the v1.2 root; `{pageNumber}` counts from 0 (OPDS-PSE). */
export const PAGE_STREAM_PATH = "/books/:id/pages/:pageNumber";

export class OpdsUrls {
  constructor(
    /** Scheme, host and any path prefix of the public address, without a trailing slash. */
    readonly origin: string,
    readonly version: OpdsVersion,
  ) {}

  static forRequest(request: Request, application: Config["application"], version: OpdsVersion): OpdsUrls {
    return new OpdsUrls(publicOrigin(request, application.base_url, application.trust_proxy), version);
  }

  /** A feed of this version; for one page of a paged feed, with its page size unless it is the default. */
  feed(ref: FeedRef, page?: { page: number; pageSize: number }): string {
    const query = new URLSearchParams(ref.query);
    if (page && page.pageSize !== DEFAULT_PAGE_SIZE) query.set("pageSize", String(page.pageSize));
    if (page) query.set("page", String(page.page));
    const search = query.toString();
    return `${this.origin}${OPDS_ROOTS[this.version]}/${ref.path}${search ? `?${search}` : ""}`;
  }

  /** The root of this version's catalogue. */
  start(): string {
    return this.feed({ path: "catalog" });
  }

  searchDescription(): string {
    return `${this.origin}${OPDS_ROOTS["v1.2"]}/search.xml`;
  }

  /**
   * The search feed as a URI template. `{searchTerms}` is OpenSearch's parameter (v1.2);
   * OPDS 2 uses an RFC 6570 template (`{?q}`).
   */
  searchTemplate(): string {
    const search = `${this.origin}${OPDS_ROOTS[this.version]}/search`;
    return this.version === "v1.2" ? `${search}?q={searchTerms}` : `${search}{?q}`;
  }

  bookFile(bookId: string): string {
    return `${this.origin}${OPDS_FILES_ROOT}/books/${bookId}/file`;
  }

  bookThumbnail(bookId: string): string {
    return `${this.origin}${OPDS_FILES_ROOT}/books/${bookId}/thumbnail`;
  }

  seriesThumbnail(seriesId: string): string {
    return `${this.origin}${OPDS_FILES_ROOT}/series/${seriesId}/thumbnail`;
  }

  /** The OPDS-PSE template: the reader fills in `{pageNumber}` (from 0) and may fill `{maxWidth}`. */
  pageStreamTemplate(bookId: string): string {
    const path = PAGE_STREAM_PATH.replace(":id", bookId).replace(":pageNumber", "{pageNumber}");
    return `${this.origin}${OPDS_ROOTS["v1.2"]}${path}?maxWidth={maxWidth}`;
  }
}
