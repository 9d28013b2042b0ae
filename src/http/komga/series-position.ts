/**
 * Komga numbers a book that has no number by its place in its series (issue 30, M3): Mihon
 * shows `metadata.number` / `numberSort` as the chapter number and its tracker counts up to
 * the largest numberSort, so every book needs one. A number from metadata, the file name or
 * an edit (`numberSort`) wins; `seriesPositions` gives the others theirs.
 *
 * The series' order is the one place to change when the catalogue keeps each book's sort
 * position itself (issue 29): until then it is computed here from SeriesService's reading
 * order (numbered books by number, then the rest by natural sort of their names).
 */
import type { BookView } from "../../db";
import type { Services } from "../../services";

/**
 * The 1-based position of each of these books in its series' order, by book id: one read of
 * each series' order, only for series that hold an unnumbered book among `books`.
 */
export async function seriesPositions(services: Pick<Services, "series">, books: Pick<BookView, "id" | "seriesId" | "numberSort" | "number">[]): Promise<Map<string, number>> {
  const positions = new Map<string, number>();
  const seriesIds = new Set(books.filter((book) => book.numberSort === null && book.number === null).map((book) => book.seriesId));
  for (const seriesId of seriesIds) {
    const ordered = await services.series.orderedBookIds(seriesId);
    ordered.forEach((bookId, index) => positions.set(bookId, index + 1));
  }
  return positions;
}
