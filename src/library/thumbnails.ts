/**
 * Thumbnails are made after cataloguing, in a background queue, so a scan never waits for
 * image work. Files are kept in the thumbnail store (files.storage: a folder or a bucket) as
 * <first two id characters>/<book id>.<ext> and can always be regenerated; a failure becomes a
 * `thumbnail` book error. A transient failure (a full disk, no file handles, the database or the
 * bucket away) is not the book's fault: it is not recorded, the next request tries again, and
 * the queue retries it after the next scan; a thumbnail made clears the book's earlier
 * thumbnail errors.
 */
import type { Repositories } from "../db";
import { PAGE_IMAGE_TYPES } from "../formats/images";
import type { FormatRegistry } from "../formats/registry";
import type { Logger } from "../logging/logger";
import type { FileStore } from "../storage/file-store";
import { removeUnreferencedFiles, type Removal } from "./orphan-files";
import { toBookAnalysisError } from "../formats/registry";
import { openableFile } from "./book-files";
import { transientCause } from "./transient";

export interface ThumbnailSettings {
  store: FileStore;
  format: "webp" | "jpeg";
  height: number;
}

export class ThumbnailQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private running: Promise<void> | undefined;
  private readonly making = new Map<string, Promise<string | null>>();
  /**
   * Books whose thumbnail failed (recorded as a book error once): a request for their thumbnail
   * does not try, and record, the same failure again until a scan queues the book anew.
   */
  private readonly failedBooks = new Set<string>();
  /** Books whose thumbnail failed for a transient reason: queued again when a scan ends. */
  private readonly retryLater = new Set<string>();
  private stopped = false;
  /** While a scan catalogues, thumbnails wait: the catalogue comes first (see ScanService). */
  private paused = false;
  made = 0;
  failed = 0;

  constructor(
    private readonly repositories: Repositories,
    private readonly formats: FormatRegistry,
    private readonly settings: ThumbnailSettings,
    private readonly log: Logger,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  enqueue(bookId: string): void {
    // Queued again after a scan re-read the book: a past failure no longer holds.
    this.failedBooks.delete(bookId);
    if (this.stopped || this.queued.has(bookId)) return;
    this.queued.add(bookId);
    this.queue.push(bookId);
    this.kick();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    const retries = [...this.retryLater];
    this.retryLater.clear();
    for (const bookId of retries) this.enqueue(bookId);
    this.kick();
  }

  private kick(): void {
    if (this.paused || this.stopped) return;
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves once the queue is empty (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.idle();
  }

  private async drain(): Promise<void> {
    while (!this.paused) {
      const bookId = this.queue.shift();
      if (bookId === undefined) return;
      this.queued.delete(bookId);
      try {
        await this.make(bookId);
      } catch (error) {
        // A database failure for one book (or one purged meanwhile) must not stop the queue.
        this.log.error("thumbnail queue: a book could not be processed", { bookId, error: error as Error });
      }
    }
  }

  /** Makes the book's thumbnail now, for a request that needs it: its path under the folder, or null on failure. */
  generate(bookId: string): Promise<string | null> {
    // Made now, so the queue need not make it again (and change the file under a client's ETag).
    if (this.queued.delete(bookId)) this.queue.splice(this.queue.indexOf(bookId), 1);
    return this.make(bookId);
  }

  /** One making per book at a time: a request and the queue asking together share the work (and the .tmp file). */
  private make(bookId: string): Promise<string | null> {
    const running = this.making.get(bookId);
    if (running) return running;
    const making = this.makeNow(bookId).finally(() => this.making.delete(bookId));
    this.making.set(bookId, making);
    return making;
  }

  private async makeNow(bookId: string): Promise<string | null> {
    const book = await this.repositories.catalogue.bookFile(bookId);
    // A book without pages has no cover to show: its analysis error already says why.
    if (!book || book.coverPage === null || this.failedBooks.has(bookId)) return null;
    const extension = this.settings.format === "webp" ? "webp" : "jpg";
    const stored = `${bookId.slice(0, 2)}/${bookId}.${extension}`;
    try {
      const { path } = await openableFile(book); // still inside its library now
      const bytes = await this.formats.thumbnail(path, {
        formatId: book.fileFormat,
        coverPage: book.coverPage,
        height: this.settings.height,
        format: this.settings.format,
      });
      await this.settings.store.write(stored, bytes, PAGE_IMAGE_TYPES[extension]!);
      await this.repositories.catalogue.setThumbnail(bookId, stored);
      this.made++;
      return stored;
    } catch (error) {
      this.failed++;
      const transient = transientCause(error);
      if (transient) {
        if (this.retryLater.size < 100_000) this.retryLater.add(bookId);
        this.log.warn("thumbnail not made, will retry", { bookId, cause: transient });
        return null;
      }
      if (this.failedBooks.size >= 100_000) this.failedBooks.clear();
      this.failedBooks.add(bookId);
      const failure = toBookAnalysisError(error);
      this.log.debug("thumbnail failed", { bookId, reason: failure.message });
      await this.repositories.catalogue.addBookError(bookId, {
        errorType: "thumbnail",
        message: failure.message,
        details: failure.details ?? null,
        occurredAt: new Date(),
      });
      return null;
    }
  }

  /** Deletes thumbnail files no book references; returns what was removed. */
  async cleanup(): Promise<Removal> {
    return removeUnreferencedFiles(this.settings.store, await this.repositories.catalogue.thumbnailPaths());
  }
}
