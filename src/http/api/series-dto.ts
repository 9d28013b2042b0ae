/** The API shape of a series (the specification leaves it open; these are Komga's familiar fields). */
import type { SeriesView } from "../../db";

export function toSeriesDto(series: SeriesView) {
  return {
    id: series.id,
    libraryId: series.libraryId,
    libraryName: series.libraryName,
    name: series.name,
    nameSort: series.nameSort,
    summary: series.summary,
    publisher: series.publisher,
    year: series.year,
    readingDirection: series.readingDirection,
    genres: series.genres,
    tags: series.tags,
    authors: series.authors,
    ageRating: series.ageRating,
    language: series.language,
    status: series.status,
    links: series.links,
    bookCount: series.bookCount,
    booksReadCount: series.booksReadCount,
    booksInProgressCount: series.booksInProgressCount,
    booksUnreadCount: series.bookCount - series.booksReadCount - series.booksInProgressCount,
    lockedFields: series.lockedFields,
    hasCustomCover: series.customCoverPath !== null,
    createdAt: series.createdAt.toISOString(),
    updatedAt: series.updatedAt.toISOString(),
  };
}
