/**
 * Read lists from ComicRack `.cbl` files (issue 33): each entry is matched to a book the caller
 * may see, in the list's order, and the entries that match nothing are reported by name, never
 * dropped silently. Matching, as Komga does it: the series by name, ignoring case (also
 * "Name (Volume)", the way libraries often name a volume's folder); when several series share
 * the name, the one whose year is the entry's Volume (a start year) or Year; then the book by
 * its number, read as the scanner reads book numbers; an entry without a number matches nothing.
 */
import type { ReadingListRecord, Repositories } from "../db";
import { DomainError } from "../errors";
import type { AccessService } from "../access/visibility";
import type { Caller } from "./books";
import { parseComicRackList, type ComicRackEntry } from "./comicrack-list";
import { parseBookNumber } from "./metadata/merge";
import { MAX_LIST_ITEMS, type ReadingListService } from "./reading-lists";

export interface UnmatchedEntry extends ComicRackEntry {
  reason: "no such series" | "no such number" | "repeated";
}

export interface ReadListImport {
  readList: ReadingListRecord;
  unmatched: UnmatchedEntry[];
}

type Candidate = Awaited<ReturnType<Repositories["readingLists"]["booksOfSeriesNamed"]>>[number];

export class ReadListImporter {
  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
    private readonly lists: ReadingListService,
  ) {}

  /** Creates the caller's read list (shared for an admin) from the file; 422 when nothing in it matches. */
  async importComicRack(caller: Caller, bytes: Uint8Array): Promise<ReadListImport> {
    const list = parseComicRackList(bytes);
    if (list.books.length > MAX_LIST_ITEMS) throw new DomainError("UnprocessableEntity", `the reading list holds more than ${MAX_LIST_ITEMS} books`);
    const names = list.books.flatMap((entry) => [entry.series, ...(entry.volume ? [`${entry.series} (${entry.volume})`] : [])]);
    const candidates = await this.repositories.readingLists.booksOfSeriesNamed(names, await this.access.seriesVisibility(caller));
    const matched: string[] = [];
    const unmatched: UnmatchedEntry[] = [];
    for (const entry of list.books) {
      const found = match(entry, candidates);
      if (typeof found !== "string") unmatched.push({ ...entry, reason: found.reason });
      else if (matched.includes(found)) unmatched.push({ ...entry, reason: "repeated" });
      else matched.push(found);
    }
    if (matched.length === 0) {
      throw new DomainError("UnprocessableEntity", `no book of "${list.name}" was found`, { fields: { file: "matches no book" }, unmatched });
    }
    return { readList: await this.lists.create(caller, "readlist", { name: list.name, ordered: true, itemIds: matched }), unmatched };
  }
}

function match(entry: ComicRackEntry, candidates: Candidate[]): string | { reason: UnmatchedEntry["reason"] } {
  const names = new Set([entry.series, entry.volume ? `${entry.series} (${entry.volume})` : ""].map((name) => name.toLowerCase()));
  const ofSeries = candidates.filter((candidate) => names.has(candidate.seriesName.toLowerCase()));
  if (ofSeries.length === 0) return { reason: "no such series" };
  // Read as the scanner reads book numbers, so the same text finds the same book; an entry
  // without a number names no book by number (an unnumbered book is not "number empty").
  const number = parseBookNumber(entry.number).numberSort;
  if (number === null) return { reason: "no such number" };
  const numbered = ofSeries.filter((candidate) => candidate.numberSort === number);
  const years = [entry.volume, entry.year].flatMap((year) => (year ? [Number(year)] : []));
  const ofYear = numbered.filter((candidate) => candidate.seriesYear !== null && years.includes(candidate.seriesYear));
  const chosen = (ofYear.length > 0 ? ofYear : numbered)[0];
  return chosen ? chosen.bookId : { reason: "no such number" };
}
