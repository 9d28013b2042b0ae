/** The API shape of a book: the spec's BookDto plus the contract's extra fields. */
import type { BookErrorView, BookView, ProgressRecord, ReadiumLocator } from "../../db";
import { progressPercentage } from "../../library/progress";

export interface ReadProgressDto {
  page: number;
  completed: boolean;
  percentage: number;
  progression: number | null;
  locator: ReadiumLocator | null;
  device: string | null;
  updatedAt: string;
}

export function toReadProgressDto(progress: ProgressRecord, pageCount: number): ReadProgressDto {
  return {
    page: progress.page,
    completed: progress.completed,
    percentage: progressPercentage(progress, pageCount),
    progression: progress.progression,
    locator: progress.locator,
    device: progress.device,
    updatedAt: progress.updatedAt.toISOString(),
  };
}

export function toBookDto(book: BookView) {
  return {
    id: book.id,
    libraryId: book.libraryId,
    libraryName: book.libraryName,
    seriesId: book.seriesId,
    seriesName: book.seriesName,
    title: book.title,
    titleSort: book.titleSort,
    number: book.number,
    numberSort: book.numberSort,
    volume: book.volume,
    year: book.year,
    summary: book.summary,
    authors: book.metadata.authors ?? [],
    fileFormat: book.fileFormat,
    fileHash: book.fileHash,
    filePath: book.filePath,
    fileSize: book.fileSize,
    pageCount: book.pageCount,
    analyzed: book.analyzed,
    analysisError: book.analysisError,
    deleted: book.deleted,
    readProgress: book.progress ? toReadProgressDto(book.progress, book.pageCount) : null,
    readingDirection: book.readingDirection,
    createdAt: book.createdAt.toISOString(),
    updatedAt: book.updatedAt.toISOString(),
  };
}


export function toBookErrorDto(error: BookErrorView) {
  return {
    errorType: error.errorType,
    message: error.message,
    occurredAt: error.occurredAt.toISOString(),
    ...(error.details ? { details: error.details } : {}),
  };
}
