/**
 * A book's own file on disk: where it is for a download, and what a failure to read it means
 * for the caller. Files are managed outside the service, so one may vanish between two scans.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { DomainError } from "../errors";
import { failureReason, isNotFound } from "../formats/errors";
import { toBookAnalysisError } from "../formats/registry";
import type { BookService, Caller } from "./books";

export interface BookFile {
  path: string;
  fileName: string;
  size: number;
  mediaType: string;
  /** SHA-256 of the content: a strong validator for the file. */
  fileHash: string;
  modifiedAt: Date;
}

export class BookFileService {
  constructor(private readonly books: BookService) {}

  /** The visible book's file as it is on disk now; 404 when the book or its file is gone. */
  async file(caller: Caller, id: string): Promise<BookFile> {
    const book = await this.books.get(caller, id);
    const info = statOnDisk(book.filePath);
    return {
      path: book.filePath,
      fileName: basename(book.filePath),
      size: info.size,
      mediaType: book.mediaType,
      fileHash: book.fileHash,
      modifiedAt: info.mtime,
    };
  }
}

/**
 * 404 with a message saying what happened when the file is no longer where the catalogue says.
 * Synchronous on purpose: it runs on every page request, and a stat of a file the system has
 * just seen takes microseconds, while the promise version hops to the thread pool and back
 * (measured: it also split each page answer into several writes instead of one).
 */
export function statOnDisk(path: string) {
  try {
    const info = statSync(path, { throwIfNoEntry: false });
    if (info?.isFile()) return info;
  } catch {
    // Unreadable (permissions, a broken mount): the same answer below.
  }
  throw new DomainError("NotFound", "the book's file is no longer on disk (moved or deleted); a scan will update the library");
}

/**
 * What a failure to read a page or resource means for the caller: 404 for something that is
 * not in the book (or a file that is gone), 422 with the reader's explanation for a book that
 * cannot be read (damaged, over a limit); anything unexpected stays a server error.
 */
export function readFailure(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const failure = toBookAnalysisError(error);
  if (isNotFound(failure)) return new DomainError("NotFound", failure.message);
  if (failureReason(failure) === "unexpected") return error;
  return new DomainError("UnprocessableEntity", failure.message, { errorType: failure.type, reason: failureReason(failure) });
}
