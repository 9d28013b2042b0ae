/**
 * Thumbnails are made after cataloguing, as leased jobs in the database (`jobs`, kind
 * `thumbnail`, key = book id: src/jobs/leased-jobs.ts), so a scan never waits for image work,
 * the work survives the process that asked for it, and any process that runs jobs makes them,
 * `concurrency` at a time. Files are kept in the thumbnail store (files.storage: a folder or a
 * bucket) as <first two id characters>/<book id>.<ext> and can always be regenerated; a failure
 * becomes a `thumbnail` book error. A transient failure (a full disk, no file handles, the
 * database or the bucket away) is not the book's fault: it is not recorded, and the job is
 * retried with backoff, and at once when a scan of this process ends (the cause may have gone,
 * as it did for the scan); a thumbnail made clears the book's earlier thumbnail errors. A
 * request that needs a thumbnail now has it made by the process that answers (`generate`). A
 * process that makes thumbnails counts the queue every second and announces each change of the
 * count to every process (ThumbnailEvents: the admin page follows it down to zero).
 */
import type { Repositories } from "../db";
import type { ThumbnailEvents } from "../events/thumbnail-events";
import { PAGE_IMAGE_TYPES } from "../formats/images";
import type { FormatRegistry } from "../formats/registry";
import { LeasedJobs, type LeasedJobSettings } from "../jobs/leased-jobs";
import type { Logger } from "../logging/logger";
import type { FileStore } from "../storage/file-store";
import { removeUnreferencedFiles, type Removal } from "./orphan-files";
import { toBookAnalysisError } from "../formats/registry";
import { openableFile } from "./book-files";
import { transientCause, TransientFailure } from "./transient";

export interface ThumbnailSettings {
  store: FileStore;
  format: "webp" | "jpeg";
  height: number;
}

/** How long books asked for gather before they are written to the queue together. */
const GATHER_MS = 100;
/** Books gathered past this many are written at once. */
const GATHER_MAX = 500;

/**
 * How old a count of the queue may be where it is only shown (a scan's status, an admin stream
 * opening): a client polling the status does not count the queue with every request, and a
 * process that makes thumbnails counts it every second anyway.
 */
export const RECENT_COUNT_MS = 1000;

export class ThumbnailQueue {
  private readonly making = new Map<string, Promise<string | null>>();
  /**
   * Books whose thumbnail failed (recorded as a book error once): a request for their thumbnail
   * does not try, and record, the same failure again until a scan queues the book anew.
   */
  private readonly failedBooks = new Set<string>();
  /**
   * Books asked for and not yet in the database: a scan changes many books a second, and one
   * statement queues them all. Kept (and written again) while the database is away.
   */
  private readonly gathered = new Set<string>();
  /** The write of gathered books on its way: true once they are queued, false when it failed. */
  private writing: Promise<boolean> | undefined;
  /** Jobs waiting after a transient failure, made due when a scan ends. */
  private retryingNow: Promise<void> | undefined;
  private writeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly jobs: LeasedJobs;
  private stopped = false;
  /** The count this process last announced. */
  private announced: number | undefined;
  made = 0;
  failed = 0;

  constructor(
    private readonly repositories: Repositories,
    private readonly formats: FormatRegistry,
    private readonly settings: ThumbnailSettings,
    jobSettings: Omit<LeasedJobSettings, "keepFinished" | "onCount">,
    private readonly events: ThumbnailEvents,
    private readonly log: Logger,
  ) {
    const onCount = () => this.announce();
    this.jobs = new LeasedJobs(repositories, "thumbnail", { ...jobSettings, keepFinished: false, onCount }, (job) => this.makeForQueue(job.key), log);
  }

  /** Thumbnails waiting or being made, in every process (as last counted) and not yet queued here. */
  get pending(): number {
    return this.jobs.queued + this.gathered.size;
  }

  /**
   * Counts the queue (scan status, metrics): now, or reusing a count younger than `maxAgeMs`
   * (one made since this process last queued thumbnails).
   */
  async countPending(maxAgeMs = 0): Promise<number> {
    await this.jobs.countQueued(maxAgeMs);
    return this.pending;
  }

  /**
   * A count made by this process with jobs (every poll, once idle, at a scan's end): a change
   * goes to every process. Only the processes that make thumbnails announce, each every change of
   * what it counted (and so shows, in the scan events), so the last count a stream hears from any
   * of them is the queue as it is.
   */
  private announce(): void {
    const pending = this.pending;
    if (pending === this.announced) return;
    this.announced = pending;
    this.events.publish({ pending });
  }

  enqueue(bookId: string): void {
    // Queued again after a scan re-read the book: a past failure no longer holds.
    this.failedBooks.delete(bookId);
    if (this.stopped) return;
    this.gathered.add(bookId);
    if (this.gathered.size >= GATHER_MAX) this.writeGathered();
    else this.writeTimer ??= setTimeout(() => this.writeGathered(), GATHER_MS);
  }

  /** This process makes queued thumbnails (role all or worker). */
  start(): Promise<void> {
    return this.jobs.start();
  }

  /** While a scan catalogues in this process, it starts no thumbnail: the catalogue comes first (see ScanService). */
  pause(): void {
    this.jobs.pause();
  }

  resume(): void {
    this.jobs.resume();
    this.retryingNow = this.repositories.jobs
      .retryNow("thumbnail")
      .then(
        () => this.jobs.kick(),
        () => undefined, // The database is away: the backoff still runs its course.
      )
      .finally(() => (this.retryingNow = undefined));
  }

  /**
   * Writes the books asked for so far to the job queue now (or, the database being away, keeps
   * them for the next attempt). A scan does so before it records its end: a process killed after
   * that must not take the last books' thumbnails with it.
   */
  async queueAsked(): Promise<void> {
    // Books asked for while a write was on its way wait for the next one: write until none is
    // left, unless a write fails (the database is away: they stay gathered for the timer's retry).
    for (let written = true; written && (this.writing || this.gathered.size > 0); ) {
      this.writeGathered();
      written = (await this.writing) ?? true;
    }
  }

  /** Resolves once the books asked for are queued and this process has no thumbnail left to make now (tests, shutdown). */
  async idle(): Promise<void> {
    await this.queueAsked();
    await this.retryingNow;
    await this.jobs.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queueAsked();
    await this.jobs.stop();
  }

  private writeGathered(): void {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (this.writing || this.gathered.size === 0) return;
    const books = [...this.gathered];
    this.gathered.clear();
    this.writing = this.repositories.jobs
      .enqueue("thumbnail", books)
      .then(
        () => {
          this.jobs.countAgain();
          this.jobs.kick();
          return true;
        },
        (error) => {
          for (const bookId of books) if (this.gathered.size < 100_000) this.gathered.add(bookId);
          this.log.warn("thumbnails could not be queued; trying again", { books: books.length, cause: transientCause(error) ?? (error as Error).message });
          if (!this.stopped) this.writeTimer ??= setTimeout(() => this.writeGathered(), 1000);
          return false;
        },
      )
      .finally(() => {
        this.writing = undefined;
        if (this.gathered.size > 0) this.writeTimer ??= setTimeout(() => this.writeGathered(), GATHER_MS);
      });
  }

  /** A queued job: undefined when done (made, or failed and recorded), else the transient cause to retry it later. */
  private async makeForQueue(bookId: string): Promise<string | undefined> {
    try {
      await this.make(bookId);
      return undefined;
    } catch (error) {
      if (error instanceof TransientFailure) return error.message;
      throw error;
    }
  }

  /** Makes the book's thumbnail now, for a request that needs it: its path under the folder, or null on failure. */
  async generate(bookId: string): Promise<string | null> {
    // Failed before in this process: not tried again (nor asked of the database) until a scan re-reads it.
    if (this.failedBooks.has(bookId)) return null;
    const made = await this.make(bookId).catch((error) => {
      if (error instanceof TransientFailure) return null;
      throw error;
    });
    // Made now, so the queue need not make it again (and change the file under a client's
    // ETag). Only once made: a book not made (gone, no pages, failed) keeps its queued job.
    if (made) {
      this.gathered.delete(bookId);
      await this.repositories.jobs.dropPending("thumbnail", bookId);
    }
    return made;
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
      const { path, info } = openableFile(book); // still inside its library now
      const fromPage = (coverPage: number) =>
        this.formats.thumbnail(path, { formatId: book.fileFormat, file: info, coverPage, height: this.settings.height, format: this.settings.format });
      // The cover image, else the first page; when both fail, the cover's failure is the one recorded.
      const bytes = await fromPage(book.coverPage).catch((error: unknown) => {
        if (book.coverPage === 1 || transientCause(error)) throw error;
        return fromPage(1).catch(() => {
          throw error;
        });
      });
      await this.settings.store.write(stored, bytes, PAGE_IMAGE_TYPES[extension]!);
      await this.repositories.catalogue.setThumbnail(bookId, stored);
      this.made++;
      return stored;
    } catch (error) {
      this.failed++;
      const transient = transientCause(error);
      if (transient) {
        this.log.warn("thumbnail not made, will retry", { bookId, cause: transient });
        throw new TransientFailure(transient, { cause: error });
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
