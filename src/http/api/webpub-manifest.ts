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
 * How metadata is written: `readium`, as the Readium specification has it (contributors as
 * objects with a role, publisher a string, a date as precise as the book's); `komga`, as Komga
 * writes it and its clients decode it (komga-client's WPMetadata: names as lists of strings,
 * publisher a list, `published` a whole date), for the Komga API's manifest.
 */
export type ManifestDialect = "readium" | "komga";

/**
 * `apiBase`: put before `/api/v1/books/...` in every href: the path of application.base_url
 * (src/http/client-address.ts), followed by the Komga prefix for the Komga API's manifest.
 */
export function toWebPubManifest(bookId: string, fallbackTitle: string, publication: Publication, apiBase: string, dialect: ManifestDialect = "readium") {
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
      ...contributors(metadata.authors ?? [], dialect),
      ...identifierOf(metadata.identifiers ?? {}),
      ...(metadata.language ? { language: metadata.language } : {}),
      ...(metadata.publisher ? { publisher: dialect === "komga" ? [metadata.publisher] : metadata.publisher } : {}),
      ...(metadata.summary ? { description: metadata.summary } : {}),
      ...(metadata.genres ? { subject: metadata.genres } : {}),
      ...(metadata.year ? { published: publishedDate(dialect, metadata.year, metadata.month, metadata.day) } : {}),
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

type Contributor = { name: string; role?: string } | string;

function contributors(authors: Author[], dialect: ManifestDialect): Record<string, Contributor[]> {
  const byField: Record<string, Contributor[]> = {};
  for (const author of authors) {
    const field = ROLE_FIELDS[author.role] ?? "contributor";
    const entry = dialect === "komga" ? author.name : field === "contributor" ? { name: author.name, role: author.role } : { name: author.name };
    (byField[field] ??= []).push(entry);
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

/** Readium: as precise as the book says; Komga: a whole date (a LocalDate), the first of the month or year when the book says no more. */
function publishedDate(dialect: ManifestDialect, year: number, month?: number, day?: number): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  if (dialect === "komga") return `${String(year).padStart(4, "0")}-${pad(month ?? 1)}-${pad(day ?? 1)}`;
  return month ? (day ? `${year}-${pad(month)}-${pad(day)}` : `${year}-${pad(month)}`) : String(year);
}
