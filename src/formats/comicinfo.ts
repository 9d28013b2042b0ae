/**
 * ComicInfo.xml (the Anansi/ComicRack schema, v1 to v2.1) read leniently: element order and
 * letter case do not matter and unknown or malformed elements are skipped, because most real
 * files fail the XSD on order alone. Only a document that is not XML at all is an error.
 */
import type { Author, BookMetadata, ReadingDirection, ReadingListMembership } from "./contract.ts";
import { failure } from "./errors.ts";
import { attribute, childElement, childElements, decodeXmlBytes, parseXml, type XmlElement } from "./xml.ts";

export interface ComicInfo {
  metadata: BookMetadata;
  /** 0-based index of the image marked `Type="FrontCover"` in <Pages>, when there is one. */
  frontCoverImageIndex?: number;
}

/** ComicInfo element -> Author.role. */
const CREATOR_ROLES: ReadonlyArray<readonly [element: string, role: string]> = [
  ["Writer", "writer"],
  ["Penciller", "penciller"],
  ["Inker", "inker"],
  ["Colorist", "colorist"],
  ["Letterer", "letterer"],
  ["CoverArtist", "cover"],
  ["Editor", "editor"],
  ["Translator", "translator"],
];

export function parseComicInfo(bytes: Uint8Array, documentName = "ComicInfo.xml"): ComicInfo {
  const root = parseXml(decodeXmlBytes(bytes), documentName);
  if (root.name.toLowerCase() !== "comicinfo") {
    throw failure("metadata", "corrupt", `${documentName} is not a ComicInfo document (root element <${root.name}>)`);
  }
  const text = (name: string): string | undefined => {
    const value = childElement(root, name)?.text;
    return value ? value : undefined;
  };
  const integer = (name: string, min: number, max: number): number | undefined => {
    const raw = text(name);
    if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return undefined;
    const value = Number.parseInt(raw, 10);
    return value >= min && value <= max ? value : undefined;
  };

  const metadata: BookMetadata = {
    title: text("Title"),
    series: text("Series"),
    number: text("Number"),
    // ComicInfo uses -1 for "unknown" in its numeric fields.
    volume: integer("Volume", 0, 100_000),
    year: integer("Year", 1, 9999),
    month: integer("Month", 1, 12),
    day: integer("Day", 1, 31),
    summary: text("Summary"),
    publisher: text("Publisher"),
    authors: creators(root),
    language: text("LanguageISO"),
    genres: commaList(text("Genre")),
    tags: commaList(text("Tags")),
    ageRating: ageRating(text("AgeRating")),
    identifiers: identifiers(text("GTIN"), text("ISBN")),
    readingDirection: readingDirection(text("Manga")),
    declaredPageCount: integer("PageCount", 1, 1_000_000),
    collections: commaList(text("SeriesGroup")),
    readingLists: readingLists(text("StoryArc"), text("StoryArcNumber"), text("AlternateSeries"), text("AlternateNumber")),
  };
  return { metadata: withoutEmptyFields(metadata), frontCoverImageIndex: frontCover(root) };
}

/**
 * ComicInfo's AgeRating values as ages, as Komga maps them (its ComicInfo provider); "Unknown",
 * "Rating Pending" and anything else are no rating.
 */
const AGE_RATINGS: Record<string, number> = {
  "adults only 18+": 18,
  "early childhood": 3,
  everyone: 0,
  "everyone 10+": 10,
  g: 0,
  "kids to adults": 6,
  m: 17,
  "ma15+": 15,
  "mature 17+": 17,
  pg: 8,
  "r18+": 18,
  teen: 13,
  "x18+": 18,
};

function ageRating(value: string | undefined): number | undefined {
  const key = value?.trim().toLowerCase();
  return key !== undefined && Object.hasOwn(AGE_RATINGS, key) ? AGE_RATINGS[key] : undefined;
}

function creators(root: XmlElement): Author[] | undefined {
  const authors: Author[] = [];
  for (const [element, role] of CREATOR_ROLES) {
    for (const name of commaList(childElement(root, element)?.text) ?? []) authors.push({ name, role });
  }
  return authors.length > 0 ? authors : undefined;
}

function commaList(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  const items = [...new Set(value.split(",").map((item) => item.trim()).filter((item) => item !== ""))];
  return items.length > 0 ? items : undefined;
}

/**
 * The story arcs (comma-separated, each paired with the StoryArcNumber at the same place) and
 * the alternate series (with AlternateNumber) the book is part of, as read lists.
 */
function readingLists(arcs: string | undefined, arcNumbers: string | undefined, alternate: string | undefined, alternateNumber: string | undefined): ReadingListMembership[] | undefined {
  const numbers = arcNumbers?.split(",").map((number) => number.trim()) ?? [];
  const found: ReadingListMembership[] = (arcs?.split(",") ?? []).flatMap((arc, index) => {
    const name = arc.trim();
    return name ? [{ name, ...(numbers[index] ? { number: numbers[index] } : {}) }] : [];
  });
  if (alternate) found.push({ name: alternate, ...(alternateNumber ? { number: alternateNumber } : {}) });
  const unique = found.filter((entry, index) => found.findIndex((other) => other.name.toLowerCase() === entry.name.toLowerCase()) === index);
  return unique.length > 0 ? unique : undefined;
}

function identifiers(gtin: string | undefined, isbn: string | undefined): Record<string, string> | undefined {
  const found: Record<string, string> = {};
  if (gtin) found.gtin = gtin;
  if (isbn) found.isbn = isbn;
  return Object.keys(found).length > 0 ? found : undefined;
}

function readingDirection(manga: string | undefined): ReadingDirection | undefined {
  // "Yes" says it is manga but not which way it reads; only the explicit value decides.
  return manga?.toLowerCase() === "yesandrighttoleft" ? "rtl" : undefined;
}

function frontCover(root: XmlElement): number | undefined {
  const pages = childElement(root, "Pages");
  if (!pages) return undefined;
  for (const page of childElements(pages, "Page")) {
    if (attribute(page, "Type")?.toLowerCase() !== "frontcover") continue;
    const index = Number.parseInt(attribute(page, "Image") ?? "", 10);
    if (Number.isInteger(index) && index >= 0) return index;
  }
  return undefined;
}

/** Drops undefined fields so that a metadata object lists only what the source stated. */
export function withoutEmptyFields(metadata: BookMetadata): BookMetadata {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== undefined)) as BookMetadata;
}
