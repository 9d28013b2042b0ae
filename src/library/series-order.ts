/**
 * A series' reading order, the one rule every surface shares (REST, OPDS, the web reader's
 * next book, the Komga API through BookDto `seriesPosition`): numbered books by number
 * (`numberSort`, so 12.5 sits between 12 and 13), then the unnumbered ones by natural order of
 * their names ("Part 2" before "Part 10"): the sort title when an admin set one, else the
 * title, then the file name; the book id settles exact ties so the order never depends on
 * which row the database returned first.
 */
import { basename } from "node:path";
import { compareNatural } from "../formats/archive-pages";

export interface SeriesOrderKey {
  id: string;
  numberSort: number | null;
  title: string;
  titleSort: string | null;
  filePath: string;
}

function compareSeriesOrder(a: SeriesOrderKey, b: SeriesOrderKey): number {
  return (
    (a.numberSort === null ? 1 : 0) - (b.numberSort === null ? 1 : 0) ||
    (a.numberSort ?? 0) - (b.numberSort ?? 0) ||
    compareNatural(a.titleSort ?? a.title, b.titleSort ?? b.title) ||
    compareNatural(basename(a.filePath), basename(b.filePath)) ||
    compareNatural(a.id, b.id)
  );
}

/** A sorted copy of `books` in series order. */
export function inSeriesOrder<T extends SeriesOrderKey>(books: readonly T[]): T[] {
  return [...books].sort(compareSeriesOrder);
}
