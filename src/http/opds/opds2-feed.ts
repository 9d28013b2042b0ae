/**
 * OPDS 2.0: a catalogue Feed as `application/opds+json` (navigation links or publications with
 * images and acquisition links, feed-level paging links, a templated search link).
 */
import { bookMetadata } from "./book-metadata";
import type { Feed, NavigationEntry, PublicationEntry } from "./catalog";
import { feedLinks, type FeedRendering } from "./feed-links";
import type { OpdsUrls } from "./urls";
import { OPDS2_TYPE, REL_ACQUISITION } from "./vocabulary";

export const OPDS2_CONTENT_TYPE = `${OPDS2_TYPE}; charset=utf-8`;

interface Link {
  rel?: string;
  href: string;
  type: string;
  title?: string;
  templated?: boolean;
}

export function opds2Feed(feed: Feed, { urls, thumbnailType }: FeedRendering): Record<string, unknown> {
  const links: Link[] = [
    ...feedLinks(feed, urls).map((link) => ({ rel: link.rel, href: link.href, type: OPDS2_TYPE })),
    { rel: "search", href: urls.searchTemplate(), type: OPDS2_TYPE, templated: true },
  ];
  const metadata = {
    title: feed.title,
    identifier: feed.id,
    modified: feed.updated.toISOString(),
    ...(feed.paging ? { numberOfItems: feed.paging.total, itemsPerPage: feed.paging.pageSize, currentPage: feed.paging.page } : {}),
  };
  const navigation = feed.navigation.map((entry) => navigationLink(entry, urls));
  const publications = feed.publications.map((entry) => publication(entry, urls, thumbnailType));
  // OPDS 2 cannot express an empty feed (navigation and publications need at least one item,
  // and a feed needs one of them): an empty page offers the way back to the start instead.
  if (navigation.length === 0 && publications.length === 0) {
    return { metadata, links, navigation: [{ rel: "start", href: urls.start(), type: OPDS2_TYPE, title: "Back to the catalogue" }] };
  }
  return { metadata, links, ...(navigation.length > 0 ? { navigation } : {}), ...(publications.length > 0 ? { publications } : {}) };
}

function navigationLink(entry: NavigationEntry, urls: OpdsUrls): Link {
  return { rel: entry.relation, href: urls.feed(entry.target), type: OPDS2_TYPE, title: entry.title };
}

function publication({ book }: PublicationEntry, urls: OpdsUrls, thumbnailType: string) {
  const described = bookMetadata(book);
  const metadata = {
    "@type": "http://schema.org/Book",
    title: book.title,
    identifier: described.isbn ?? `urn:uuid:${book.id}`,
    modified: book.updatedAt.toISOString(),
    // `published` must be a full date; a year alone stays out.
    ...(described.issued?.length === 10 ? { published: described.issued } : {}),
    ...(described.language ? { language: described.language } : {}),
    ...(described.authors.length > 0 ? { author: described.authors } : {}),
    ...(described.contributors.length > 0 ? { contributor: described.contributors.map((person) => ({ name: person.name, role: person.role })) } : {}),
    ...(described.publisher ? { publisher: described.publisher } : {}),
    ...(described.genres.length > 0 ? { subject: described.genres } : {}),
    ...(book.summary ? { description: book.summary } : {}),
    ...(book.pageCount > 0 ? { numberOfPages: book.pageCount } : {}),
    belongsTo: { series: { name: book.seriesName, ...(book.numberSort !== null ? { position: book.numberSort } : {}) } },
  };
  const acquisition = {
    rel: REL_ACQUISITION,
    href: urls.bookFile(book.id),
    type: book.mediaType,
    ...(book.fileSize > 0 ? { size: book.fileSize } : {}),
  };
  const thumbnail = urls.bookThumbnail(book.id);
  return {
    metadata,
    links: [acquisition],
    images: [{ href: thumbnail, type: thumbnailType }],
  };
}
