/**
 * ComicRack reading lists (`.cbl`), the read-list exchange format comic readers share:
 *
 *   <ReadingList><Name>Civil War</Name><Books>
 *     <Book Series="Civil War" Number="1" Volume="2006" Year="2006"><Id>...</Id></Book> ...
 *   </Books></ReadingList>
 *
 * Parsed with the project's XML module (src/formats/xml.ts: no DTDs, no entities). `Volume` is
 * the series' volume, which lists write as its start year; `Number` may be "1", "1.5", "½"...
 * and is read as the scanner reads a book's number (parseBookNumber, ./metadata/merge.ts).
 */
import { BookAnalysisError } from "../formats/contract";
import { attribute, childElement, childElements, decodeXmlBytes, parseXml } from "../formats/xml";
import { DomainError } from "../errors";

/** A list file at most this large (the biggest published event lists are well under 200 KiB). */
export const MAX_CBL_BYTES = 1024 * 1024;

export interface ComicRackEntry {
  series: string;
  number: string;
  volume: string | null;
  year: string | null;
}

export interface ComicRackList {
  name: string;
  books: ComicRackEntry[];
}

const invalid = (message: string) => new DomainError("UnprocessableEntity", message, { fields: { file: "not a ComicRack reading list" } });

export function parseComicRackList(bytes: Uint8Array): ComicRackList {
  let root;
  try {
    root = parseXml(decodeXmlBytes(bytes), "the reading list");
  } catch (error) {
    if (error instanceof BookAnalysisError) throw invalid(error.message);
    throw error;
  }
  if (root.name.toLowerCase() !== "readinglist") throw invalid(`the root element is <${root.name}>, not <ReadingList>`);
  const name = childElement(root, "Name")?.text.trim() ?? "";
  if (!name) throw invalid("the reading list has no <Name>");
  const books = childElements(childElement(root, "Books") ?? root, "Book").map((book) => ({
    series: attribute(book, "Series")?.trim() ?? "",
    number: attribute(book, "Number")?.trim() ?? "",
    volume: attribute(book, "Volume")?.trim() || null,
    year: attribute(book, "Year")?.trim() || null,
  }));
  return { name, books };
}
