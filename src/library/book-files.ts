/**
 * A book's own file on disk: where it is for a download, and what a failure to read it means
 * for the caller. Files are managed outside the service, so one may vanish between two scans,
 * and a symbolic link may be re-pointed after it: every read goes through `openableFile`,
 * which checks at request time that the file still resolves inside its library.
 */
import { realpathSync, type Stats, statSync } from "node:fs";
import { basename } from "node:path";
import type { Repositories } from "../db";
import { DomainError, notFound } from "../errors";
import type { FileStamp } from "../formats/contract";
import { failureReason, isNotFound } from "../formats/errors";
import { toBookAnalysisError } from "../formats/registry";
import type { BookService, Caller } from "./books";
import { resolveWithinNow } from "./confinement";

export interface BookFile {
  path: string;
  fileName: string;
  size: number;
  mediaType: string;
  /** Names this version of the file (`fileVersion`): its strong validator. */
  version: string;
  modifiedAt: Date;
}

export class BookFileService {
  constructor(
    private readonly repositories: Repositories,
    private readonly books: BookService,
  ) {}

  /**
   * The visible book's file as it is on disk now, whatever its analysis found (a download is
   * the file itself: every acquisition link a feed shows must answer); 404 when the book or
   * its file is gone.
   */
  async file(caller: Caller, id: string): Promise<BookFile> {
    const book = await this.books.get(caller, id);
    const { path, info } = await this.located(book);
    return {
      path,
      fileName: basename(book.filePath),
      size: info.size,
      mediaType: book.mediaType,
      version: fileVersion(book, info),
      modifiedAt: info.mtime,
    };
  }

  /** `openableFile` for a book known by its library id. */
  async openable(book: { libraryId: string; filePath: string; pageCount: number }) {
    if (book.pageCount === 0) throw unreadableBook();
    return this.located(book);
  }

  /** `fileInsideLibrary` for a book known by its library id. */
  private async located(book: { libraryId: string; filePath: string }) {
    const library = await this.repositories.libraries.findById(book.libraryId);
    if (!library) throw notFound("book");
    return fileInsideLibrary({ ...book, libraryPath: library.path });
  }
}

/**
 * What names the book's file as it is now, for strong validators (ETags, If-Range): the scan's
 * content hash while the file keeps the size and modification time of its scan; else (rewritten
 * since, not rescanned yet: the hash names the old bytes, and a range of the new file resumed
 * under it would splice two versions) its size and modification time now (hex, as nginx's
 * ETags are made of them, here in milliseconds).
 */
export function fileVersion(book: { fileHash: string; fileSize: number; fileModifiedAt: number }, now: FileStamp): string {
  // The catalogue keeps whole milliseconds (the scan truncates the stat's mtimeMs).
  if (book.fileSize === now.size && book.fileModifiedAt === Math.trunc(now.mtimeMs)) return book.fileHash;
  return `${now.size.toString(16)}-${Math.trunc(now.mtimeMs).toString(16)}`;
}

/** The book's file as it really is now: its path (links resolved) and what a stat of it just found. */
export interface OpenableFile {
  path: string;
  info: Stats;
}

/**
 * The book's file as it really is now (links resolved), to read from that path and no other.
 * 422 for a file that never became a readable book (nothing can be read from it, though its
 * download serves it as it is: anything with a book's extension is catalogued, readable or
 * not); 404 when it is gone or now resolves outside
 * its library (a link re-pointed after the scan). `statOfPath`: a stat of `book.filePath` the
 * caller has just taken (a regular file), reused when the path has no link on the way.
 */
export function openableFile(book: { filePath: string; pageCount: number; libraryPath: string }, statOfPath?: Stats): OpenableFile {
  if (book.pageCount === 0) throw unreadableBook();
  return fileInsideLibrary(book, statOfPath);
}

const unreadableBook = () => new DomainError("UnprocessableEntity", "the file is not a readable book, so it cannot be read from", { reason: "unreadable" });

/** The file as it really is now, inside its library, readable as a book or not (downloads): see openableFile. */
export function fileInsideLibrary(book: { filePath: string; libraryPath: string }, statOfPath?: Stats): OpenableFile {
  // Synchronous on purpose: it runs on every page request (see resolveWithinNow).
  const resolution = resolveWithinNow(canonical(book.libraryPath), book.filePath);
  if (resolution.kind === "inside") {
    // No link on the way: the caller's stat of the catalogued path, just taken, is the real
    // file's, and a second one is a system call more on every page (issue 14).
    if (statOfPath && resolution.path === book.filePath) return { path: resolution.path, info: statOfPath };
    try {
      const info = statSync(resolution.path, { throwIfNoEntry: false });
      if (info?.isFile()) return { path: resolution.path, info };
    } catch {
      // Unreadable (permissions, a broken mount): the same answer below.
    }
  }
  if (resolution.kind === "outside") throw new DomainError("NotFound", "the book's file now leads outside its library; it is not served");
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

/**
 * How long a library folder's resolved path is reused. Every page request checks its book's
 * file against it, and resolving the folder again each time cost as much as resolving the file
 * (a third of a 100 KB page's processing time, issue 14). The file itself is resolved on every
 * request, so a link re-pointed out of the library is refused at once; only a change of where
 * the library's own folder leads (a re-pointed mount) takes up to this long to be seen.
 */
const CANONICAL_FOLDER_MS = 2000;
const canonicalFolders = new Map<string, { path: string; resolvedAt: number }>();

/** The library folder with its links resolved, or as configured when it cannot be resolved now. */
function canonical(folder: string): string {
  const now = Date.now();
  const known = canonicalFolders.get(folder);
  if (known && now - known.resolvedAt < CANONICAL_FOLDER_MS) return known.path;
  let path: string;
  try {
    path = realpathSync.native(folder);
  } catch {
    canonicalFolders.delete(folder);
    return folder;
  }
  // Libraries are few; the bound only guards against a path that changes with every call.
  if (canonicalFolders.size >= 1000) canonicalFolders.clear();
  canonicalFolders.set(folder, { path, resolvedAt: now });
  return path;
}
