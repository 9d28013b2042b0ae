/** The API shape of a book: the spec's BookDto plus the contract's extra fields. */
import { basename } from "node:path";
import type { AccessService } from "../../access/visibility";
import type { BookErrorView, BookView, ProgressRecord, ReadiumLocator, UserRecord } from "../../db";
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

/**
 * `showServerPaths` (AccessService.seesServerInternals: admins) decides whether `filePath` is
 * included; for everyone else it is left out, and the path is cut from analysis messages too
 * (a file-system error names the file it failed on).
 */
export function toBookDto(book: BookView, showServerPaths: boolean) {
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
    seriesPosition: book.seriesPosition,
    volume: book.volume,
    year: book.year,
    summary: book.summary,
    authors: book.metadata.authors ?? [],
    fileFormat: book.fileFormat,
    fileHash: book.fileHash,
    ...(showServerPaths && { filePath: book.filePath }),
    fileSize: book.fileSize,
    pageCount: book.pageCount,
    analyzed: book.analyzed,
    analysisError: showServerPaths ? book.analysisError : withoutServerPath(book.analysisError, book.filePath),
    deleted: book.deleted,
    readProgress: book.progress ? toReadProgressDto(book.progress, book.pageCount) : null,
    readingDirection: book.readingDirection,
    lockedFields: book.lockedFields,
    createdAt: book.createdAt.toISOString(),
    updatedAt: book.updatedAt.toISOString(),
  };
}


/** toBookDto for one caller, as a mapper: `rows.map(bookDtoFor(services.access, caller.user))`. */
export function bookDtoFor(access: AccessService, user: Pick<UserRecord, "role">): (book: BookView) => BookDto {
  const showServerPaths = access.seesServerInternals(user);
  return (book) => toBookDto(book, showServerPaths);
}

export type BookDto = ReturnType<typeof toBookDto>;

export function toBookErrorDto(error: BookErrorView, book: BookView, showServerPaths: boolean) {
  return {
    errorType: error.errorType,
    message: showServerPaths ? error.message : withoutServerPath(error.message, book.filePath),
    occurredAt: error.occurredAt.toISOString(),
    ...(error.details ? { details: error.details } : {}),
  };
}

/** The text with the book's path replaced by its file name. */
export function withoutServerPath<T extends string | null>(text: T, filePath: string): T {
  return (text === null ? text : text.replaceAll(filePath, basename(filePath))) as T;
}
