/**
 * Book metadata from a PDF's document information dictionary, with its XMP packet filling the
 * fields the dictionary lacks (the dictionary wins when both state a field: readers and
 * editors show and edit the dictionary first).
 */
import { XMLParser } from "fast-xml-parser";
import type { Author, BookMetadata } from "../../src/formats/contract.ts";

/** The fields of the info dictionary this module reads, as pdf.js returns them. */
export interface PdfInfo {
  Title?: unknown;
  Author?: unknown;
  Subject?: unknown;
  Keywords?: unknown;
  CreationDate?: unknown;
}

/** The XMP properties this module reads, already reduced to text. */
export interface XmpFields {
  title?: string;
  creators?: string[];
  description?: string;
  createDate?: string;
}

const AUTHOR_ROLE = "writer";

export function pdfMetadata(info: PdfInfo, xmp: XmpFields): BookMetadata | null {
  const values: BookMetadata = {};
  const title = oneLine(cleanText(info.Title) ?? cleanText(xmp.title));
  if (title) values.title = title;

  const authorNames = splitList(oneLine(cleanText(info.Author)), /;/) ?? xmp.creators?.flatMap((c) => oneLine(cleanText(c)) ?? []);
  if (authorNames?.length) values.authors = authorNames.map((name): Author => ({ name, role: AUTHOR_ROLE }));

  const summary = cleanText(info.Subject) ?? cleanText(xmp.description);
  if (summary) values.summary = summary;

  const keywords = oneLine(cleanText(info.Keywords));
  // Some tools (comicbox's legacy mode) store a whole ComicInfo document in Keywords: not tags.
  const tags = keywords?.startsWith("<") ? undefined : splitList(keywords, /[,;]/);
  if (tags?.length) values.tags = tags;

  const date = pdfDate(cleanText(info.CreationDate)) ?? xmpDate(cleanText(xmp.createDate));
  if (date) Object.assign(values, date);

  return Object.keys(values).length > 0 ? values : null;
}

/** Text without control characters other than line breaks and tabs (a trailing NUL is common), trimmed. */
function cleanText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]+/g, " ").trim();
  return text || undefined;
}

/** Whitespace runs (line breaks included) as one space, for fields shown on one line. */
function oneLine(text: string | undefined): string | undefined {
  return text?.replace(/\s+/g, " ");
}

function splitList(text: string | undefined, separator: RegExp): string[] | undefined {
  const items = text
    ?.split(separator)
    .map((item) => item.trim())
    .filter(Boolean);
  return items?.length ? items : undefined;
}

type DateParts = Pick<BookMetadata, "year" | "month" | "day">;

/**
 * "D:YYYYMMDDHHmmSS+HH'mm'" with everything after the year optional. The date is taken as
 * written (the writer's local date), not converted to UTC, so it does not shift by a day.
 * 1970-01-01T00:00:00 exactly is a placeholder some tools write for "unknown", not a date.
 */
function pdfDate(text: string | undefined): DateParts | undefined {
  const match = text?.match(/^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{6})?/);
  if (!match || (match[1] === "1970" && match[2] === "01" && match[3] === "01" && (match[4] ?? "000000") === "000000")) {
    return undefined;
  }
  return dateParts(match[1], match[2], match[3]);
}

/** ISO 8601 as XMP writes it: "YYYY", "YYYY-MM", "YYYY-MM-DD[Thh:mm...]". */
function xmpDate(text: string | undefined): DateParts | undefined {
  const match = text?.match(/^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/);
  return match ? dateParts(match[1], match[2], match[3]) : undefined;
}

function dateParts(year?: string, month?: string, day?: string): DateParts | undefined {
  const parts: DateParts = { year: Number(year) };
  if (!parts.year) return undefined;
  const monthNumber = Number(month);
  if (monthNumber >= 1 && monthNumber <= 12) {
    parts.month = monthNumber;
    const dayNumber = Number(day);
    if (dayNumber >= 1 && dayNumber <= 31) parts.day = dayNumber;
  }
  return parts;
}

// XMP ------------------------------------------------------------------------------------------

type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

const xmpParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === "rdf:Description" || name === "rdf:li",
});

/**
 * Reads dc:title, dc:creator, dc:description and xmp:CreateDate from an XMP packet. Parsed
 * here rather than taken from pdf.js, whose metadata map joins all languages of an rdf:Alt
 * into one string ("TitleTitle"); the x-default entry is preferred. Properties may be elements
 * or attributes of any rdf:Description. Malformed XMP yields no fields.
 */
export function xmpFields(rawXmp: string | null | undefined): XmpFields {
  if (!rawXmp) return {};
  let document: XmlNode;
  try {
    document = xmpParser.parse(rawXmp) as XmlNode;
  } catch {
    return {};
  }
  const fields: XmpFields = {};
  for (const description of findDescriptions(document)) {
    fields.title ??= xmpText(description["dc:title"]);
    fields.description ??= xmpText(description["dc:description"]);
    fields.createDate ??= xmpText(description["xmp:CreateDate"] ?? description["@xmp:CreateDate"]);
    fields.creators ??= xmpList(description["dc:creator"]);
  }
  return fields;
}

function findDescriptions(node: XmlNode | XmlNode[], found: Record<string, XmlNode | XmlNode[]>[] = []) {
  if (Array.isArray(node)) {
    for (const item of node) findDescriptions(item, found);
  } else if (typeof node === "object") {
    for (const [name, child] of Object.entries(node)) {
      if (name === "rdf:Description") {
        for (const description of [child].flat()) if (typeof description === "object") found.push(description);
      } else {
        findDescriptions(child, found);
      }
    }
  }
  return found;
}

/** Text of a simple property, or of the x-default (else first) entry of a language alternative. */
function xmpText(node: XmlNode | XmlNode[] | undefined): string | undefined {
  if (typeof node === "string") return node;
  if (node === undefined || Array.isArray(node)) return undefined;
  const alternatives = asArray(node["rdf:Alt"]).flatMap((alt) => (typeof alt === "object" && !Array.isArray(alt) ? asArray(alt["rdf:li"]) : []));
  if (alternatives.length === 0) return textOf(node);
  const preferred = alternatives.find((li) => typeof li === "object" && !Array.isArray(li) && li["@xml:lang"] === "x-default");
  return textOf(preferred ?? alternatives[0]);
}

/** Entries of an rdf:Seq or rdf:Bag (dc:creator is an ordered list). */
function xmpList(node: XmlNode | XmlNode[] | undefined): string[] | undefined {
  if (node === undefined || typeof node === "string" || Array.isArray(node)) return undefined;
  const container = node["rdf:Seq"] ?? node["rdf:Bag"];
  if (container === undefined || typeof container === "string" || Array.isArray(container)) return undefined;
  const items = asArray(container["rdf:li"]).flatMap((li) => textOf(li) ?? []);
  return items.length ? items : undefined;
}

function textOf(node: XmlNode | XmlNode[] | undefined): string | undefined {
  if (typeof node === "string") return node;
  if (node === undefined || Array.isArray(node)) return undefined;
  const text = node["#text"];
  return typeof text === "string" ? text : undefined;
}

function asArray(node: XmlNode | XmlNode[] | undefined): XmlNode[] {
  return node === undefined ? [] : Array.isArray(node) ? node : [node];
}
