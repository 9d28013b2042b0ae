/** Turns pages of Longbox series and books into Komga DTOs, with what the DTOs need beyond the rows. */
import type { BookView, SeriesView } from "../../db";
import type { Caller } from "../../library/books";
import type { Services } from "../../services";
import { toKomgaBook, toKomgaSeries } from "./dto";
import { seriesPositions } from "./series-position";

export class KomgaPresenter {
  constructor(private readonly services: Pick<Services, "catalogueMetadata" | "pages" | "access" | "series">) {}

  /** Series with what their books say together (authors, genres, tags, release date). */
  async series(caller: Caller, rows: SeriesView[]) {
    const metadata = await this.services.catalogueMetadata.ofSeries(
      caller,
      rows.map((series) => series.id),
    );
    return rows.map((series) => toKomgaSeries(series, metadata.get(series.id)!));
  }

  /**
   * Books, EPUBs marked Divina-compatible when every page is an image; server paths for admins
   * only; a book without a number numbered by its position in its series.
   */
  async books(caller: Caller, rows: BookView[]) {
    const imageOnly = await this.services.pages.imageOnly(rows.filter((book) => book.fileFormat === "epub"));
    const showServerPaths = this.services.access.seesServerInternals(caller);
    const positions = await seriesPositions(this.services, rows);
    return rows.map((book) => toKomgaBook(book, imageOnly.has(book.id), showServerPaths, positions.get(book.id)));
  }
}
