/**
 * Komga numbers a book that has no number by its place in its series (issue 30, M3): Mihon
 * shows `metadata.number` / `numberSort` as the chapter number and its tracker counts up to
 * the largest numberSort, so every book needs one. A number from metadata, the file name or
 * an edit (`numberSort`) wins; `seriesPositions` gives the others theirs.
 *
 * The place is the catalogue's own (`seriesPosition`, src/library/series-order.ts, kept by every
 * scan): one rule for REST, OPDS and this API. A book catalogued before positions existed has
 * none until its library's next scan; its series' order is read then (SeriesService).
 */
import type { BookView } from "../../db";
import type { Services } from "../../services";

/**
 * The 1-based position of each unnumbered book among `books` in its series' order, by book id:
 * the recorded position, else one read of the series' order for series that lack one.
 */
export async function seriesPositions(
  services: Pick<Services, "series">,
  books: Pick<BookView, "id" | "seriesId" | "numberSort" | "number" | "seriesPosition">[],
): Promise<Map<string, number>> {
  const positions = new Map<string, number>();
  const unnumbered = books.filter((book) => book.numberSort === null && book.number === null);
  const unrecorded = new Set<string>();
  for (const book of unnumbered) {
    if (book.seriesPosition !== null) positions.set(book.id, book.seriesPosition);
    else unrecorded.add(book.seriesId);
  }
  for (const seriesId of unrecorded) {
    const ordered = await services.series.orderedBookIds(seriesId);
    ordered.forEach((bookId, index) => positions.has(bookId) || positions.set(bookId, index + 1));
  }
  return positions;
}
