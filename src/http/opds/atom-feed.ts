/**
 * OPDS 1.2: a catalogue Feed as an Atom document, with OPDS-PSE page streaming links, Dublin
 * Core terms and OpenSearch paging counts. Element order follows the Atom grammar (the feed's
 * own elements before its entries).
 */
import type { BookView } from "../../db";
import { bookMetadata } from "./book-metadata";
import type { Feed, NavigationEntry, PublicationEntry } from "./catalog";
import { feedLinks, type FeedRendering } from "./feed-links";
import type { OpdsUrls } from "./urls";
import {
  ATOM_NAMESPACE,
  atomFeedType,
  OPENSEARCH_TYPE,
  PAGE_STREAM_LINK_TYPE,
  REL_ACQUISITION,
  REL_IMAGE,
  REL_PAGE_STREAM,
  REL_THUMBNAIL,
} from "./vocabulary";
import { xmlDocument, type XmlElement } from "./xml";

export const ATOM_CONTENT_TYPE = "application/atom+xml; charset=utf-8";

const NAMESPACES = {
  "@_xmlns": ATOM_NAMESPACE,
  "@_xmlns:opds": "http://opds-spec.org/2010/catalog",
  "@_xmlns:pse": "http://vaemendis.net/opds-pse/ns",
  "@_xmlns:dcterms": "http://purl.org/dc/terms/",
  "@_xmlns:opensearch": "http://a9.com/-/spec/opensearch/1.1/",
};

export function atomFeed(feed: Feed, rendering: FeedRendering): string {
  const { urls } = rendering;
  const links = [
    ...feedLinks(feed, urls).map((link) => ({ "@_rel": link.rel, "@_href": link.href, "@_type": atomFeedType(link.kind) })),
    { "@_rel": "search", "@_href": urls.searchDescription(), "@_type": OPENSEARCH_TYPE },
  ];
  return xmlDocument({
    feed: {
      ...NAMESPACES,
      id: feed.id,
      title: feed.title,
      updated: feed.updated.toISOString(),
      author: { name: "Longbox", uri: urls.origin },
      link: links,
      "opensearch:totalResults": feed.paging?.total,
      "opensearch:itemsPerPage": feed.paging?.pageSize,
      "opensearch:startIndex": feed.paging ? (feed.paging.page - 1) * feed.paging.pageSize + 1 : undefined,
      entry: [
        ...feed.navigation.map((entry) => navigationEntry(entry, feed.updated, rendering)),
        ...feed.publications.map((entry) => publicationEntry(entry, rendering)),
      ],
    },
  });
}

function navigationEntry(entry: NavigationEntry, feedUpdated: Date, { urls, thumbnailType }: FeedRendering): XmlElement {
  const links: XmlElement[] = [{ "@_rel": entry.relation, "@_href": urls.feed(entry.target), "@_type": atomFeedType(entry.targetKind) }];
  if (entry.seriesId) {
    const thumbnail = urls.seriesThumbnail(entry.seriesId);
    links.push({ "@_rel": REL_IMAGE, "@_href": thumbnail, "@_type": thumbnailType });
    links.push({ "@_rel": REL_THUMBNAIL, "@_href": thumbnail, "@_type": thumbnailType });
  }
  return {
    title: entry.title,
    id: entry.id,
    updated: (entry.updated ?? feedUpdated).toISOString(),
    content: entry.description ? { "@_type": "text", "#text": entry.description } : undefined,
    link: links,
  };
}

function publicationEntry({ book, streamable }: PublicationEntry, { urls, thumbnailType }: FeedRendering): XmlElement {
  const metadata = bookMetadata(book);
  const thumbnail = urls.bookThumbnail(book.id);
  const links: XmlElement[] = [
    { "@_rel": REL_ACQUISITION, "@_href": urls.bookFile(book.id), "@_type": book.mediaType, "@_length": book.fileSize },
    { "@_rel": REL_IMAGE, "@_href": thumbnail, "@_type": thumbnailType },
    { "@_rel": REL_THUMBNAIL, "@_href": thumbnail, "@_type": thumbnailType },
  ];
  if (streamable) links.push(pageStreamLink(book, urls));
  return {
    title: book.title,
    id: `urn:uuid:${book.id}`,
    updated: book.updatedAt.toISOString(),
    published: book.createdAt.toISOString(),
    author: metadata.authors.map((name) => ({ name })),
    contributor: metadata.contributors.map((person) => ({ name: person.name })),
    category: metadata.genres.map((genre) => ({ "@_term": genre, "@_label": genre })),
    "dcterms:language": metadata.language,
    "dcterms:publisher": metadata.publisher,
    "dcterms:issued": metadata.issued,
    "dcterms:identifier": metadata.isbn,
    "dcterms:isPartOf": book.seriesName,
    "dcterms:extent": `${book.pageCount} ${book.pageCount === 1 ? "page" : "pages"}`,
    summary: book.summary ? { "@_type": "text", "#text": book.summary } : undefined,
    link: links,
  };
}

/**
 * OPDS-PSE 1.1/1.2: `{pageNumber}` counts from 0, `pse:lastRead` from 1. The link names one
 * type for all pages; like Komga it says JPEG, and the page route answers with JPEG, PNG or GIF
 * only (other pages are re-encoded as JPEG), which is what PSE readers decode.
 */
function pageStreamLink(book: BookView, urls: OpdsUrls): XmlElement {
  return {
    "@_rel": REL_PAGE_STREAM,
    "@_href": urls.pageStreamTemplate(book.id),
    "@_type": PAGE_STREAM_LINK_TYPE,
    "@_pse:count": book.pageCount,
    "@_pse:lastRead": book.progress?.page,
    "@_pse:lastReadDate": book.progress?.updatedAt.toISOString(),
  };
}
