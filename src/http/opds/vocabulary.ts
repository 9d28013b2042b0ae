/** Media types and link relations that OPDS readers recognise, shared by both versions. */

export const ATOM_NAMESPACE = "http://www.w3.org/2005/Atom";

/** The media type of an OPDS 1.2 feed of this kind. */
export const atomFeedType = (kind: "navigation" | "acquisition") => `application/atom+xml;profile=opds-catalog;kind=${kind}`;
export const OPDS2_TYPE = "application/opds+json";
export const OPENSEARCH_TYPE = "application/opensearchdescription+xml";

export const REL_ACQUISITION = "http://opds-spec.org/acquisition";
export const REL_IMAGE = "http://opds-spec.org/image";
export const REL_THUMBNAIL = "http://opds-spec.org/image/thumbnail";
export const REL_PAGE_STREAM = "http://vaemendis.net/opds-pse/stream";

/** OPDS-PSE allows only these page types; other pages are re-encoded as JPEG for it. */
export const PAGE_STREAM_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif"];
export const PAGE_STREAM_LINK_TYPE = "image/jpeg";

/** Thumbnails (and uploaded covers) are stored in the configured format. */
export const thumbnailType = (format: "webp" | "jpeg") => (format === "webp" ? "image/webp" : "image/jpeg");
