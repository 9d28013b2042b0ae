/**
 * The rows of the home page ("shelves"), each with its own "see all" page (/shelves/:id): what a
 * reader coming back wants first, books to keep reading and the next ones waiting, then what
 * changed in the catalogue, then what they finished.
 */
import type { BookView, SeriesView } from "../../db";
import type { UserRecord } from "../../db";
import type { Services } from "../../services";

type Page = { offset: number; limit: number };

export type Shelf =
  | { id: string; titleId: string; kind: "books"; load(services: Services, user: UserRecord, page: Page): Promise<{ rows: BookView[]; total: number }> }
  | { id: string; titleId: string; kind: "series"; load(services: Services, user: UserRecord, page: Page): Promise<{ rows: SeriesView[]; total: number }> };

export const SHELVES: readonly Shelf[] = [
  { id: "keep-reading", titleId: "shelves.keepReading", kind: "books", load: (services, user, page) => services.books.continueReading(user, page) },
  { id: "on-deck", titleId: "shelves.onDeck", kind: "books", load: (services, user, page) => services.series.onDeck(user, page) },
  {
    id: "recently-added-series",
    titleId: "shelves.recentlyAddedSeries",
    kind: "series",
    load: (services, user, page) => services.series.list(user, {}, page, { field: "createdAt", direction: "desc" }),
  },
  {
    id: "recently-updated-series",
    titleId: "shelves.recentlyUpdatedSeries",
    kind: "series",
    load: (services, user, page) => services.series.list(user, {}, page, { field: "updatedAt", direction: "desc" }),
  },
  { id: "recently-read", titleId: "shelves.recentlyRead", kind: "books", load: (services, user, page) => services.books.recentlyRead(user, page) },
];

export function shelfById(id: string): Shelf | undefined {
  return SHELVES.find((shelf) => shelf.id === id);
}
