/**
 * A feed's links to the catalogue around it, the same in both versions: itself, the start,
 * its parent, and for a paged feed the first, previous, next and last pages (with the page size
 * kept when it is not the default). Each version adds its own media types and search link.
 */
import type { Feed, FeedKind, Paging } from "./catalog";
import type { OpdsUrls } from "./urls";

/** What a version's writer needs besides the feed. */
export interface FeedRendering {
  urls: OpdsUrls;
  /** The media type of thumbnails (the configured thumbnail format). */
  thumbnailType: string;
}

export interface FeedLink {
  rel: "self" | "start" | "up" | "first" | "previous" | "next" | "last";
  href: string;
  /** What kind of feed the link leads to. */
  kind: FeedKind;
}

/** The pages a paged feed links to: first and last always, previous and next where they exist. */
export function pageLinks(paging: Paging): { first: number; last: number; previous?: number; next?: number } {
  const last = Math.max(1, Math.ceil(paging.total / paging.pageSize));
  return {
    first: 1,
    last,
    // A page past the end leads back to the last one.
    previous: paging.page > 1 ? Math.min(paging.page - 1, last) : undefined,
    next: paging.page < last ? paging.page + 1 : undefined,
  };
}

export function feedLinks(feed: Feed, urls: OpdsUrls): FeedLink[] {
  const links: FeedLink[] = [
    { rel: "self", href: urls.feed(feed.self, feed.paging), kind: feed.kind },
    { rel: "start", href: urls.start(), kind: "navigation" },
  ];
  // Only navigation feeds contain other feeds, so a parent is always one.
  if (feed.up) links.push({ rel: "up", href: urls.feed(feed.up), kind: "navigation" });
  const { paging } = feed;
  if (paging) {
    const pages = pageLinks(paging);
    const page = (rel: FeedLink["rel"], number: number | undefined) => {
      if (number !== undefined) links.push({ rel, href: urls.feed(feed.self, { ...paging, page: number }), kind: feed.kind });
    };
    page("first", pages.first);
    page("previous", pages.previous);
    page("next", pages.next);
    page("last", pages.last);
  }
  return links;
}
