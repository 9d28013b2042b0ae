/**
 * Books read resource by resource in the web reader (EPUB): the publication description from
 * the format plugin, and single resources by their path inside the book. Resource paths come
 * from the URL and are untrusted: anything that could name something outside the book is
 * refused here, before the plugin (which refuses escapes too) is asked.
 */
import { DomainError } from "../errors";
import type { BookResource, Publication } from "../formats/contract";
import type { FormatRegistry } from "../formats/registry";
import type { BookView } from "../db";
import { fileVersion, openableFile, readFailure, type BookFileService } from "./book-files";
import type { BookService, Caller } from "./books";

export class PublicationService {
  constructor(
    private readonly books: BookService,
    private readonly files: BookFileService,
    private readonly formats: FormatRegistry,
  ) {}

  /** 404 for books whose format has no web publication (comic archives, PDF). */
  async publication(caller: Caller, bookId: string): Promise<{ book: BookView; publication: Publication }> {
    const book = await this.books.get(caller, bookId);
    const { path } = await this.files.openable(book);
    try {
      return { book, publication: await this.formats.publication(path, { formatId: book.fileFormat }) };
    } catch (error) {
      throw readFailure(error);
    }
  }

  /**
   * The book's Readium positions: one per reading-order item of a fixed layout; for reflowable
   * text, one per 1024 bytes of each item (at least one). `sizes`: the items' sizes as the
   * analysis recorded them (the book's pages), by path; an item not among them is read to size it.
   */
  async positions(caller: Caller, bookId: string, sizes: ReadonlyMap<string, number>): Promise<{ book: BookView; positions: ReadiumPosition[] }> {
    const { book, publication } = await this.publication(caller, bookId);
    const counts: number[] = [];
    for (const item of publication.readingOrder) {
      if (publication.layout === "fixed") {
        counts.push(1);
        continue;
      }
      const path = item.href.split("#")[0]!;
      const size = sizes.get(path) ?? (await this.resource(caller, bookId, path)).resource.bytes.byteLength;
      counts.push(Math.max(1, Math.ceil(size / BYTES_PER_POSITION)));
    }
    const total = counts.reduce((sum, count) => sum + count, 0);
    let position = 0;
    const positions = publication.readingOrder.flatMap((item, index) =>
      Array.from({ length: counts[index]! }, (_, part) => {
        position++;
        return { href: item.href, type: item.type ?? "application/octet-stream", progression: part / counts[index]!, position, totalProgression: position / total };
      }),
    );
    return { book, positions };
  }

  /**
   * A reader asks for many resources of one book: its file row (with its library's folder) comes
   * from the page path's cache. `version` names the book's file as read (`fileVersion`).
   */
  async resource(caller: Caller, bookId: string, resourcePath: string): Promise<{ version: string; resource: BookResource }> {
    const book = await this.books.fileOf(caller, bookId);
    const { path, info } = openableFile(book);
    return { version: fileVersion(book, info), resource: await this.read(book, path, resourcePath) };
  }

  /**
   * Several of the book's files at once (the files the EPUB reader's page carries), the
   * caller's access checked once: by path, each file's resource, or null for a file the book
   * does not have (the reader asks only for optional files it has).
   */
  async resources(caller: Caller, bookId: string, resourcePaths: readonly string[]): Promise<Map<string, BookResource | null>> {
    const book = await this.books.fileOf(caller, bookId);
    const { path } = openableFile(book);
    const read = (resourcePath: string) =>
      this.read(book, path, resourcePath).catch((error: unknown) => {
        if (error instanceof DomainError && error.kind === "NotFound") return null;
        throw error;
      });
    return new Map(await Promise.all(resourcePaths.map(async (resourcePath) => [resourcePath, await read(resourcePath)] as const)));
  }

  private async read(book: Pick<BookView, "fileFormat">, path: string, resourcePath: string): Promise<BookResource> {
    if (!isPlainBookPath(resourcePath)) throw new DomainError("NotFound", `"${resourcePath}" is not a resource of this book`);
    try {
      return await this.formats.readResource(path, resourcePath, { formatId: book.fileFormat });
    } catch (error) {
      throw readFailure(error);
    }
  }
}

/** One Readium position: where it is inside a reading-order item and through the whole book. */
export interface ReadiumPosition {
  href: string;
  type: string;
  /** Through its item, 0..1. */
  progression: number;
  /** 1-based. */
  position: number;
  totalProgression: number;
}

/** Readium's rule (and Komga's, EpubExtractor.computePositions): one position per 1024 bytes of a reflowable item. */
const BYTES_PER_POSITION = 1024;

/** A relative `/`-separated path with no `.`/`..` segment, backslash, control character or empty segment. */
export function isPlainBookPath(path: string): boolean {
  if (path === "" || path.startsWith("/") || /[\\\u0000-\u001f]/.test(path)) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
