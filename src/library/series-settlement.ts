/**
 * Settles a series from all of its present books, after any change of them (a scan, a
 * re-analysis, an admin's edit of a book), so that the result depends on the books alone,
 * never on the order a scan met them in or on how many workers scanned (docs/api.md, "How a
 * series is named"):
 * - the name: the series name carried by more than half of the books, each book's from its
 *   highest source (ComicInfo, EPUB OPF, PDF properties, then its file name; a folder name is
 *   no vote), else the strategy's fallback (the folder's name for a series of a folder);
 * - year, publisher, summary, reading direction and language: from the first book in series
 *   order that has one (each book's value already comes from its highest source);
 * - genres, tags and authors: those of all its books (one spelling per value ignoring case, the
 *   first met; sorted), as Komga aggregates a series' book metadata; the age rating: the highest
 *   of its books' (a series suits the readers all its books suit);
 * - every book's position in the series' order (./series-order.ts).
 * Fields an admin locked are never written; a rename is returned for the scan to report.
 */
import { basename, extname } from "node:path";
import type { Repositories, SeriesRename, SettledSeriesFields, SettlementBook, SettlementSeries } from "../db";
import type { Logger } from "../logging/logger";
import { inSeriesOrder } from "./series-order";
import { distinctAuthors, distinctIgnoringCase } from "./catalogue-metadata";
import { fallbackSeriesFields, normaliseSeriesName } from "./series-strategies";

/** Where a book's series name may come from to count as a vote (a folder name is the fallback, not a vote). */
const VOTING_SOURCES: ReadonlySet<string> = new Set(["comicinfo", "opf", "pdf", "filename"]);

export class SeriesSettlement {
  constructor(
    private readonly repositories: Repositories,
    private readonly log: Logger,
  ) {}

  /**
   * Settles each of these series (those gone meanwhile are skipped), each read and written in
   * one transaction, and only when something changes; returns the renames.
   */
  async settle(seriesIds: Iterable<string>, signal?: AbortSignal): Promise<SeriesRename[]> {
    const renames: SeriesRename[] = [];
    for (const seriesId of new Set(seriesIds)) {
      signal?.throwIfAborted();
      const rename = await this.repositories.settlement.settle(seriesId, settledSeries);
      if (rename) {
        this.log.info("series renamed by its books' metadata", { ...rename });
        renames.push(rename);
      }
    }
    return renames;
  }
}

/**
 * The fields the books settle (null when a book was catalogued before books kept their own
 * series name: only a deep scan, which re-reads it, can settle them) and the positions that
 * changed.
 */
export function settledSeries(
  series: SettlementSeries,
  books: readonly SettlementBook[],
): { fields: SettledSeriesFields | null; positions: Map<string, number> } {
  const ordered = inSeriesOrder(books);
  const positions = new Map<string, number>();
  ordered.forEach((book, index) => {
    if (book.seriesPosition !== index + 1) positions.set(book.id, index + 1);
  });
  const predatesRule = books.some(
    (book) =>
      (book.metadata.sources?.series !== undefined && book.metadata.series === undefined) ||
      (book.metadata.sources?.readingDirection !== undefined && book.metadata.readingDirection === undefined),
  );
  if (predatesRule) return { fields: null, positions };

  const first = ordered[0]!;
  const fallback = fallbackSeriesFields(series.strategy, series, { series: first.metadata.series, title: fileTitle(first) });
  const firstOf = <T>(pick: (book: SettlementBook) => T | null | undefined): T | null =>
    ordered.map(pick).find((value) => value !== null && value !== undefined && value !== "") ?? null;
  return {
    fields: {
      name: majorityName(ordered) ?? fallback.name,
      summary: firstOf((book) => book.summary),
      publisher: firstOf((book) => book.metadata.publisher) ?? fallback.publisher,
      year: firstOf((book) => book.year),
      readingDirection: firstOf((book) => book.metadata.readingDirection),
      genres: distinctIgnoringCase(ordered.flatMap((book) => book.metadata.genres ?? [])),
      tags: distinctIgnoringCase(ordered.flatMap((book) => book.metadata.tags ?? [])),
      authors: distinctAuthors(ordered.flatMap((book) => book.metadata.authors ?? [])),
      ageRating: highest(ordered.map((book) => book.metadata.ageRating)),
      language: firstOf((book) => book.metadata.language),
    },
    positions,
  };
}

/**
 * The title the book's file gives, else its file name, as ./series-strategies.ts groups it: never
 * the `title` column, which an admin may edit (an edit would rename the series at the next
 * settlement). A book catalogued before the file's title was kept apart has only the column
 * until a deep scan re-reads it.
 */
function fileTitle(book: SettlementBook): string {
  if (book.metadata.title !== undefined) return book.metadata.title;
  return book.metadata.sources?.title !== undefined ? book.title : basename(book.filePath, extname(book.filePath));
}

/**
 * The series name more than half of the books carry (names equal once case, Unicode forms and
 * spacing are ignored), spelt as the first of them in series order spells it; undefined when
 * no name has a majority.
 */
function majorityName(ordered: readonly SettlementBook[]): string | undefined {
  const votes = new Map<string, { spelling: string; count: number }>();
  for (const book of ordered) {
    const name = book.metadata.series?.trim();
    const source = book.metadata.sources?.series;
    if (!name || !source || !VOTING_SOURCES.has(source)) continue;
    const key = normaliseSeriesName(name);
    const vote = votes.get(key) ?? { spelling: name, count: 0 };
    vote.count++;
    votes.set(key, vote);
  }
  return [...votes.values()].find((vote) => vote.count * 2 > ordered.length)?.spelling;
}

/** The highest of the numbers given, null when there is none. */
function highest(values: readonly (number | undefined)[]): number | null {
  const numbers = values.filter((value): value is number => typeof value === "number");
  return numbers.length === 0 ? null : Math.max(...numbers);
}
