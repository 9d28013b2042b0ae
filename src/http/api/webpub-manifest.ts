/**
 * A book's Publication as a Readium Web Publication Manifest
 * (https://readium.org/webpub-manifest), whose hrefs lead to the book's resource endpoint.
 */
import type { Author, Publication, PublicationLink } from "../../formats/contract";

export const WEBPUB_MEDIA_TYPE = "application/webpub+json";

/** Readium contributor roles by our Author.role; everyone else is a plain contributor. */
const ROLE_FIELDS: Record<string, string> = {
  author: "author",
  writer: "author",
  translator: "translator",
  editor: "editor",
  artist: "artist",
  illustrator: "illustrator",
  penciller: "penciler",
  inker: "inker",
  colorist: "colorist",
  letterer: "letterer",
  narrator: "narrator",
};

/**
 * `apiBase`: put before `/api/v1/books/...` in every href: the path of application.base_url
 * (src/http/client-address.ts), followed by the Komga prefix for the Komga API's manifest.
 */
export function toWebPubManifest(bookId: string, fallbackTitle: string, publication: Publication, apiBase: string) {
  const base = `${apiBase}/api/v1/books/${bookId}`;
  const href = (path: string) => {
    const [file = "", ...fragment] = path.split("#");
    const encoded = file.split("/").map(encodeURIComponent).join("/");
    return `${base}/resource/${encoded}${fragment.length > 0 ? `#${fragment.join("#")}` : ""}`;
  };
  const link = (entry: PublicationLink): Record<string, unknown> => ({
    href: href(entry.href),
    ...(entry.type ? { type: entry.type } : {}),
    ...(entry.title ? { title: entry.title } : {}),
    ...(entry.children ? { children: entry.children.map(link) } : {}),
  });
  const { metadata } = publication;
  return {
    "@context": "https://readium.org/webpub-manifest/context.jsonld",
    metadata: {
      "@type": "http://schema.org/Book",
      title: metadata.title ?? fallbackTitle,
      ...contributors(metadata.authors ?? []),
      ...identifierOf(metadata.identifiers ?? {}),
      ...(metadata.language ? { language: metadata.language } : {}),
      ...(metadata.publisher ? { publisher: metadata.publisher } : {}),
      ...(metadata.summary ? { description: metadata.summary } : {}),
      ...(metadata.genres ? { subject: metadata.genres } : {}),
      ...(metadata.year ? { published: publishedDate(metadata.year, metadata.month, metadata.day) } : {}),
      layout: publication.layout,
      readingProgression: metadata.readingDirection === "rtl" ? "rtl" : "ltr",
      numberOfPages: publication.readingOrder.length,
    },
    links: [{ rel: "self", href: `${base}/manifest`, type: WEBPUB_MEDIA_TYPE }],
    readingOrder: publication.readingOrder.map(link),
    resources: publication.resources.map((entry) => ({ ...link(entry), ...(entry.href === publication.cover ? { rel: "cover" } : {}) })),
    toc: publication.toc.map(link),
  };
}

function contributors(authors: Author[]): Record<string, { name: string; role?: string }[]> {
  const byField: Record<string, { name: string; role?: string }[]> = {};
  for (const author of authors) {
    const field = ROLE_FIELDS[author.role] ?? "contributor";
    (byField[field] ??= []).push(field === "contributor" ? { name: author.name, role: author.role } : { name: author.name });
  }
  return byField;
}

/** Readium wants a URI: ISBN, UUID and DOI become URNs, identifiers that are URIs stay, others are left out. */
function identifierOf(identifiers: Record<string, string>): { identifier?: string } {
  for (const [scheme, value] of Object.entries(identifiers)) {
    if (scheme === "isbn" || scheme === "uuid" || scheme === "doi") return { identifier: `urn:${scheme}:${value}` };
    if (/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return { identifier: value };
  }
  return {};
}

function publishedDate(year: number, month?: number, day?: number): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return month ? (day ? `${year}-${pad(month)}-${pad(day)}` : `${year}-${pad(month)}`) : String(year);
}
