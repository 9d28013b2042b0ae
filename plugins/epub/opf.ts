/**
 * The EPUB package: META-INF/container.xml points at the OPF, whose metadata, manifest, spine
 * and guide describe the book. EPUB 2 and EPUB 3 conventions are both read, including the
 * calibre ones most real-world files carry.
 */
import { withoutEmptyFields } from "../../src/formats/comicinfo.ts";
import type { Author, BookMetadata } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { attribute, childElement, childElements, descendantElements, type XmlElement } from "../../src/formats/xml.ts";
import { resolveHref } from "./book-paths.ts";

export interface ManifestItem {
  id: string;
  /** Entry name in the ZIP. */
  path: string;
  mediaType: string;
  properties: string[];
}

export interface EpubPackage {
  /** Entry name of the package document (the OPF) itself. */
  path: string;
  metadata: BookMetadata;
  manifestByPath: Map<string, ManifestItem>;
  spine: ManifestItem[];
  /** rendition:layout pre-paginated: every spine item is a page (comics, manga). */
  fixedLayout: boolean;
  /** Entry name of the cover image, or of the cover document when only that is declared. */
  cover: string | null;
  /** Where the text starts by the package alone: the guide's "text" reference, else the first linear spine item. */
  textStart: string | null;
}

export function rootfilePath(container: XmlElement): string {
  for (const rootfile of descendantElements(container, "rootfile")) {
    const mediaType = attribute(rootfile, "media-type");
    const path = resolveHref("", attribute(rootfile, "full-path") ?? "");
    if (path && (mediaType === undefined || mediaType === "application/oebps-package+xml")) return path;
  }
  throw failure("parser", "corrupt", "META-INF/container.xml names no package (OPF) file");
}

export function readPackage(opf: XmlElement, opfPath: string): EpubPackage {
  const metadataElement = childElement(opf, "metadata");
  const manifestElement = childElement(opf, "manifest");
  const spineElement = childElement(opf, "spine");
  if (!metadataElement || !manifestElement || !spineElement) {
    throw failure("parser", "corrupt", `${opfPath} lacks its metadata, manifest or spine`);
  }
  const manifestById = new Map<string, ManifestItem>();
  for (const item of childElements(manifestElement, "item")) {
    const id = attribute(item, "id");
    const path = resolveHref(opfPath, attribute(item, "href") ?? "");
    if (!id || !path) continue;
    const properties = (attribute(item, "properties") ?? "").split(/\s+/).filter((property) => property !== "");
    manifestById.set(id, { id, path, mediaType: attribute(item, "media-type") ?? "application/octet-stream", properties });
  }
  const itemrefs = childElements(spineElement, "itemref");
  const spine = itemrefs.flatMap((itemref) => {
    const item = manifestById.get(attribute(itemref, "idref") ?? "");
    return item ? [item] : [];
  });
  const firstLinear = itemrefs.find((itemref) => attribute(itemref, "linear") !== "no" && manifestById.has(attribute(itemref, "idref") ?? ""));

  const metas = new OpfMetas(metadataElement);
  const metadata = readMetadata(metadataElement, metas);
  if (attribute(spineElement, "page-progression-direction") === "rtl") metadata.readingDirection = "rtl";

  return {
    path: opfPath,
    metadata: withoutEmptyFields(metadata),
    manifestByPath: new Map([...manifestById.values()].map((item) => [item.path, item])),
    spine,
    fixedLayout: metas.property("rendition:layout") === "pre-paginated",
    cover: findCover(opf, opfPath, manifestById, metas),
    textStart: guideReference(opf, opfPath, (type) => type === "text" || type === "bodymatter") ?? (firstLinear ? manifestById.get(attribute(firstLinear, "idref")!)!.path : null),
  };
}

/** The <meta> elements: EPUB 2 `name`/`content` pairs and EPUB 3 `property` values, with refinements. */
class OpfMetas {
  private readonly elements: XmlElement[];

  constructor(metadata: XmlElement) {
    this.elements = childElements(metadata, "meta");
  }

  /** EPUB 2: <meta name="calibre:series" content="..."/> */
  named(name: string): string | undefined {
    const meta = this.elements.find((element) => attribute(element, "name") === name);
    return meta ? nonEmpty(attribute(meta, "content")) : undefined;
  }

  /** EPUB 3: <meta property="rendition:layout">pre-paginated</meta>, not refining anything. */
  property(property: string): string | undefined {
    return nonEmpty(this.withProperty(property).find((meta) => attribute(meta, "refines") === undefined)?.text);
  }

  /** EPUB 3: <meta refines="#id" property="role">aut</meta> */
  refinement(id: string | undefined, property: string): string | undefined {
    if (!id) return undefined;
    return nonEmpty(this.withProperty(property).find((meta) => attribute(meta, "refines") === `#${id}`)?.text);
  }

  withProperty(property: string): XmlElement[] {
    return this.elements.filter((meta) => attribute(meta, "property") === property);
  }
}

function readMetadata(metadata: XmlElement, metas: OpfMetas): BookMetadata {
  const dc = (name: string): XmlElement[] => childElements(metadata, name).filter((element) => element.text !== "");
  const date = parseDate(dc("date").find((element) => attribute(element, "event") === "publication") ?? dc("date")[0]);
  const series = readSeries(metas);
  return {
    title: mainTitle(dc("title"), metas),
    series: series?.name,
    number: series?.number,
    seriesGroup: series?.group,
    year: date?.year,
    month: date?.month,
    day: date?.day,
    summary: dc("description")[0]?.text,
    publisher: dc("publisher")[0]?.text,
    authors: readAuthors(dc("creator"), dc("contributor"), metas),
    language: dc("language")[0]?.text,
    genres: subjects(dc("subject")),
    identifiers: readIdentifiers(dc("identifier"), metas),
  };
}

/** The title refined as `main` when there are several (title + subtitle), else the first. */
function mainTitle(titles: XmlElement[], metas: OpfMetas): string | undefined {
  return (titles.find((title) => metas.refinement(attribute(title, "id"), "title-type") === "main") ?? titles[0])?.text;
}

/** MARC relator codes (opf:role, refines role) -> Author.role. */
const RELATOR_ROLES: Record<string, string> = {
  aut: "author",
  ill: "illustrator",
  art: "artist",
  edt: "editor",
  trl: "translator",
  clr: "colorist",
  cov: "cover",
  nrt: "narrator",
  aui: "author",
  ant: "author",
};
/** Book producers are the conversion software (calibre), not people. */
const IGNORED_RELATORS = new Set(["bkp"]);
/** calibre writes this creator when the author is not known. */
const UNKNOWN_CREATOR = "Unknown";

function readAuthors(creators: XmlElement[], contributors: XmlElement[], metas: OpfMetas): Author[] | undefined {
  const authors: Author[] = [];
  const add = (element: XmlElement, defaultRole: string): void => {
    const relator = (attribute(element, "role") ?? metas.refinement(attribute(element, "id"), "role"))?.toLowerCase();
    if ((relator && IGNORED_RELATORS.has(relator)) || element.text === UNKNOWN_CREATOR) return;
    authors.push({ name: element.text, role: relator ? (RELATOR_ROLES[relator] ?? relator) : defaultRole });
  };
  for (const creator of creators) add(creator, "author");
  for (const contributor of contributors) add(contributor, "contributor");
  return authors.length > 0 ? authors : undefined;
}

interface SeriesInfo {
  name: string;
  number?: string;
  group?: string;
}

/** EPUB 3 belongs-to-collection (type series, or untyped), else calibre:series / calibre:series_index. */
function readSeries(metas: OpfMetas): SeriesInfo | undefined {
  for (const collection of metas.withProperty("belongs-to-collection")) {
    const id = attribute(collection, "id");
    const type = metas.refinement(id, "collection-type");
    if (collection.text === "" || (type !== undefined && type !== "series")) continue;
    return { name: collection.text, ...seriesPosition(metas.refinement(id, "group-position")) };
  }
  const calibreSeries = metas.named("calibre:series");
  return calibreSeries ? { name: calibreSeries, ...seriesPosition(metas.named("calibre:series_index")) } : undefined;
}

/** "1.0" -> number "1"; "2.5" -> "2.5"; anything that is not a number is kept as the group position. */
function seriesPosition(position: string | undefined): { number?: string; group?: string } {
  if (!position) return {};
  if (!/^\d+(\.\d+)?$/.test(position)) return { group: position };
  return { number: String(Number.parseFloat(position)) };
}

/** calibre writes 0101-01-01 for "date unknown". */
const UNKNOWN_DATE_YEAR = 101;

function parseDate(element: XmlElement | undefined): { year: number; month?: number; day?: number } | undefined {
  const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(element?.text ?? "");
  if (!match) return undefined;
  const year = Number(match[1]);
  if (year === UNKNOWN_DATE_YEAR || year === 0) return undefined;
  const month = match[2] ? Number(match[2]) : undefined;
  const day = match[3] ? Number(match[3]) : undefined;
  return { year, month: month && month <= 12 ? month : undefined, day: day && day <= 31 ? day : undefined };
}

/** dc:subject values; one element sometimes lists several, comma-separated. */
function subjects(elements: XmlElement[]): string[] | undefined {
  const values = elements.flatMap((element) => element.text.split(",")).map((value) => value.trim()).filter((value) => value !== "");
  return values.length > 0 ? [...new Set(values)] : undefined;
}

/** ONIX code list 5 (EPUB 3 identifier-type refinements with scheme onix:codelist5). */
const ONIX_IDENTIFIER_TYPES: Record<string, string> = { "02": "isbn", "03": "gtin", "06": "doi", "15": "isbn" };

/**
 * Identifiers keyed by scheme: opf:scheme (EPUB 2), an identifier-type refinement (EPUB 3), or
 * a `urn:isbn:` / `urn:uuid:` / `calibre:` prefix on the value. The first of each scheme wins.
 */
function readIdentifiers(elements: XmlElement[], metas: OpfMetas): Record<string, string> | undefined {
  const identifiers: Record<string, string> = {};
  for (const element of elements) {
    let value = element.text;
    let scheme = attribute(element, "scheme")?.toLowerCase();
    const type = metas.refinement(attribute(element, "id"), "identifier-type");
    if (!scheme && type) scheme = /^\d+$/.test(type) ? ONIX_IDENTIFIER_TYPES[type] : type.toLowerCase();
    const prefixed = /^(?:urn:)?(isbn|uuid|calibre|doi):(.+)$/i.exec(value);
    if (prefixed?.[1] && prefixed[2]) {
      scheme ??= prefixed[1].toLowerCase();
      value = prefixed[2];
    }
    const key = scheme ?? "identifier";
    if (!(key in identifiers)) identifiers[key] = value;
  }
  return Object.keys(identifiers).length > 0 ? identifiers : undefined;
}

/**
 * The cover: EPUB 3 `properties="cover-image"`, then EPUB 2 `<meta name="cover">` (an item id,
 * or, in sloppy files, an href), then the guide's `type="cover"` reference (often a document).
 */
function findCover(opf: XmlElement, opfPath: string, manifestById: Map<string, ManifestItem>, metas: OpfMetas): string | null {
  const items = [...manifestById.values()];
  const coverImage = items.find((item) => item.properties.includes("cover-image"));
  if (coverImage) return coverImage.path;
  const metaCover = metas.named("cover");
  if (metaCover) {
    const item = manifestById.get(metaCover) ?? items.find((candidate) => candidate.path === resolveHref(opfPath, metaCover));
    if (item) return item.path;
  }
  return guideReference(opf, opfPath, (type) => type === "cover");
}

/** The path of the EPUB 2 guide's first reference of a type `wanted` accepts (types compared in lower case). */
function guideReference(opf: XmlElement, opfPath: string, wanted: (type: string) => boolean): string | null {
  const guide = childElement(opf, "guide");
  const reference = guide ? childElements(guide, "reference").find((ref) => wanted(attribute(ref, "type")?.toLowerCase() ?? "")) : undefined;
  return reference ? resolveHref(opfPath, attribute(reference, "href") ?? "") : null;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
