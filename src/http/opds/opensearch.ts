/**
 * The OpenSearch 1.1 description document OPDS 1.2 readers fetch (feed link rel="search") to
 * learn how to search: one URL template answering with an acquisition feed.
 */
import type { OpdsUrls } from "./urls";
import { atomFeedType } from "./vocabulary";
import { xmlDocument } from "./xml";

export const OPENSEARCH_CONTENT_TYPE = "application/opensearchdescription+xml; charset=utf-8";

export function openSearchDescription(urls: OpdsUrls): string {
  return xmlDocument({
    OpenSearchDescription: {
      "@_xmlns": "http://a9.com/-/spec/opensearch/1.1/",
      ShortName: "Longbox",
      Description: "Search books by title, series or author",
      InputEncoding: "UTF-8",
      OutputEncoding: "UTF-8",
      Url: { "@_type": atomFeedType("acquisition"), "@_template": urls.searchTemplate() },
    },
  });
}
