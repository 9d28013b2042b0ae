/**
 * Step two of a scan: reconcile what is on disk (./walker.ts) with the catalogue.
 *
 * For each file found:
 * - catalogued at this path, same size and modification time, normal mode: skipped unopened;
 * - catalogued at this path but changed (or deep mode): hashed; same hash in normal mode only
 *   refreshes size/time, else the book is re-analysed in place (same id);
 * - catalogued at this path but soft-deleted: it returned; restored (re-analysed if its hash changed);
 * - not catalogued: hashed; when the hash matches a book whose file vanished in this scan or a
 *   soft-deleted book, that book moved here (id, metadata and progress kept); otherwise a new book.
 * Catalogued files not found on disk and not claimed by a move are soft-deleted at the end, so a
 * cancelled or failed scan never deletes anything. Then every series whose books changed is
 * settled from all of its books (./series-settlement.ts: name, fields, order); a deep scan
 * settles every series of the library. Each book is written in its own transaction:
 * an interrupted scan leaves whole books only, and the next scan completes the rest.
 * A book that fails for a transient reason (database unreachable, disk full) is retried; if the
 * cause lasts, the scan fails saying so. A scan that would remove more than the configured share
 * of the library (or finds its folder empty) removes nothing and waits for an admin.
 */
import { realpath, stat } from "node:fs/promises";
import { extname, sep } from "node:path";
import { ZERO_COUNTERS, type BookSnapshot, type LibraryRecord, type Repositories, type ScanCounters, type ScanMode, type SeriesIdentity } from "../db";
import { DomainError } from "../errors";
import type { FormatRegistry } from "../formats/registry";
import type { Logger } from "../logging/logger";
import { describeBook } from "./book-description";
import { resolveWithin } from "./confinement";
import { documentIdOf, fileDigests, type FileDigests } from "./file-digests";
import { SeriesSettlement } from "./series-settlement";
import { seriesFor } from "./series-strategies";
import { retryTransient, transientCause, TransientFailure } from "./transient";
import { isMountPoint } from "./mount-point";
import { walkLibrary, type DiscoveredFile } from "./walker";

/** How many files ahead of the one being catalogued are given to the digest workers (at least). */
const DIGESTS_AHEAD = 16;

export interface ScanReporter {
  /** Called whenever counters change; the caller throttles what it publishes. */
  progress(counters: ScanCounters): void;
  /** A book whose file was added or whose content changed: its thumbnail is (re)made later. */
  bookChanged(bookId: string): void;
}

export interface ScanOptions {
  /** Above this share of the library's present books (0..1), removals wait for an admin. */
  maxRemovalShare: number;
  /** How long a book (or the final removals) is retried while the database or disk is away. */
  transientRetryMs: number;
}

/** The scan found what looks like a lost disk rather than deleted books: nothing was removed. */
export class SuspiciousScan extends Error {
  override name = "SuspiciousScan";
}

type Work =
  | { kind: "refresh"; file: DiscoveredFile; book: BookSnapshot }
  | { kind: "restore"; file: DiscoveredFile; book: BookSnapshot }
  // `origin`: the vanished or deleted book this file turned out to be (decided once, kept across retries).
  | { kind: "new"; file: DiscoveredFile; origin?: BookSnapshot | null };

export class LibraryScanner {
  private readonly settlement: SeriesSettlement;

  constructor(
    private readonly repositories: Repositories,
    private readonly formats: FormatRegistry,
    private readonly log: Logger,
    private readonly concurrency: number,
    private readonly options: ScanOptions,
  ) {
    this.settlement = new SeriesSettlement(repositories, log);
  }

  /** Settles these series after their books changed outside a scan (an admin's edit). */
  async settleSeries(seriesIds: Iterable<string>): Promise<void> {
    await this.settlement.settle(seriesIds);
  }

  /**
   * `confirmRemovals`: an admin accepted that this scan removes more than the guard allows.
   * `scope`: paths inside the library (folders or files) to look at instead of the whole tree
   * (watching); the same rules apply, books elsewhere are left as they are.
   * Throws SuspiciousScan (nothing removed) when the library looks lost rather than emptied,
   * TransientFailure when the database or the disk stayed unavailable.
   */
  async scan(
    library: LibraryRecord,
    mode: ScanMode,
    counters: ScanCounters,
    signal: AbortSignal,
    reporter: ScanReporter,
    confirmRemovals = false,
    scope?: readonly string[],
  ) {
    const log = this.log.child({ libraryId: library.id });
    const mountedNow = await isMountPoint(library.path);
    // An unreachable library (an unmounted share) must not read as "every file vanished".
    if (scope) await stat(library.path).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`the library folder cannot be read (${error.code ?? error.message})`);
    });
    const walk = await walkLibrary(library.path, new Set(this.formats.extensions()), signal, scope);
    const rootProblem = walk.problems.find((problem) => problem.path === library.path);
    if (rootProblem) throw new Error(`the library folder cannot be read (${rootProblem.message})`);
    for (const problem of walk.problems) log.warn("scan: skipped an unreadable part of the library", { ...problem });
    for (const link of walk.linksOutside) log.warn("scan: symbolic link leads out of the library, not followed", { ...link });
    counters.pathsSkipped = walk.problems.length;
    counters.linksOutside = walk.linksOutside.length;
    const unreadable = walk.problems.map((problem) => problem.path);
    const inUnreadablePart = (path: string) => unreadable.some((part) => path === part || path.startsWith(part + sep));
    counters.filesDiscovered = walk.files.length;
    reporter.progress(counters);

    const catalogue = await this.repositories.catalogue.bookSnapshots(library.id);
    const byPath = new Map(catalogue.map((book) => [book.filePath, book]));
    const onDisk = new Set(walk.files.map((file) => file.path));
    // Books in a folder the walk could not read are not known to be gone: they are left alone.
    // A targeted scan (watching) only knows about the paths it walked.
    const inScope = (path: string) => !scope || scope.some((part) => path === part || path.startsWith(part + sep));
    const vanished = catalogue.filter(
      (book) => !book.deleted && inScope(book.filePath) && !onDisk.has(book.filePath) && !inUnreadablePart(book.filePath),
    );
    // Books that may have moved: their file vanished now, or they were soft-deleted earlier.
    const movable = new Map<string, BookSnapshot[]>();
    for (const book of [...vanished, ...catalogue.filter((book) => book.deleted && !onDisk.has(book.filePath))]) {
      movable.set(book.fileHash, [...(movable.get(book.fileHash) ?? []), book]);
    }
    const claimed = new Set<string>();
    const seriesUpserted: SeriesMemo = new Map();
    // Series whose books changed (gained, lost or re-read one): settled at the end.
    const touched = new Set<string>();

    const work: Work[] = [];
    for (const file of walk.files) {
      const book = byPath.get(file.path);
      if (!book) work.push({ kind: "new", file });
      else if (book.deleted) work.push({ kind: "restore", file, book });
      else if (mode === "deep" || book.fileSize !== file.size || book.fileModifiedAt !== file.modifiedAt) {
        work.push({ kind: "refresh", file, book });
      } else counters.filesProcessed++;
    }
    reporter.progress(counters);

    // Files are hashed (in the digest workers) ahead of those being catalogued, so that the
    // server thread seldom waits for a hash: it analyses and stores one book while the next ones
    // hash. The lead is deep (DIGESTS_AHEAD files, only their digests are kept) because the two
    // sides' paces vary book by book: with only `concurrency` files ahead, the worker ran dry
    // whenever the server thread spent longer on a book, and a fresh scan took 1.4x the time of
    // hashing on every core instead of 1.1x (docs/benchmarks.md, Scanning).
    const digestsAhead = new Map<number, Promise<FileDigests>>();
    const digestsOf = (index: number) => {
      let digests = digestsAhead.get(index);
      if (!digests) {
        digests = fileDigests(work[index]!.file.path, signal);
        digests.catch(() => undefined); // awaited (and its failure handled) when its turn comes
        digestsAhead.set(index, digests);
      }
      return digests;
    };
    const hashedFirst = async (index: number) => {
      const lead = Math.max(this.concurrency, DIGESTS_AHEAD);
      for (let ahead = index + 1; ahead <= Math.min(work.length - 1, index + lead); ahead++) digestsOf(ahead);
      try {
        return await digestsOf(index);
      } finally {
        digestsAhead.delete(index); // a retry of the file hashes it again
      }
    };

    const reconcile = async (item: Work, index: number) => {
      const digests = await hashedFirst(index);
      const hash = digests.sha256;
      if (item.kind === "new") {
        if (item.origin === undefined) {
          item.origin = movable.get(hash)?.find((book) => !claimed.has(book.id)) ?? null;
          if (item.origin) claimed.add(item.origin.id);
        }
        const moved = item.origin;
        if (moved) touched.add(moved.seriesId);
        touched.add((await this.catalogueFile(library, item.file, digests, moved?.id, signal, reporter, counters, seriesUpserted)).seriesId);
        if (!moved) counters.booksAdded++;
        else if (moved.deleted) counters.booksRestored++;
        else counters.booksMoved++;
      } else if (item.kind === "restore") {
        touched.add(item.book.seriesId);
        if (hash === item.book.fileHash && mode === "normal") await this.relocate(item.book, item.file);
        else touched.add((await this.catalogueFile(library, item.file, digests, item.book.id, signal, reporter, counters, seriesUpserted)).seriesId);
        counters.booksRestored++;
      } else if (hash === item.book.fileHash && mode === "normal") {
        await this.relocate(item.book, item.file);
      } else {
        const saved = await this.catalogueFile(library, item.file, digests, item.book.id, signal, reporter, counters, seriesUpserted);
        // Only a book whose record changed is an update (a deep scan re-reads them all).
        if (saved.changed) {
          counters.booksUpdated++;
          touched.add(item.book.seriesId).add(saved.seriesId);
        }
      }
    };

    const handle = async (item: Work, index: number) => {
      try {
        await retryTransient(
          () => reconcile(item, index),
          signal,
          (cause, attempt) => log.warn("scan: transient failure, retrying the file", { path: item.file.path, cause, attempt }),
          this.options.transientRetryMs,
        );
      } catch (error) {
        // Cancelled, or the database/disk stayed away: the scan ends (failed, saying why).
        if (signal.aborted || error instanceof TransientFailure) throw error;
        // The file changed under the scan (vanished, became unreadable): skipped, not a book error.
        counters.pathsSkipped++;
        log.warn("scan: file skipped", { path: item.file.path, error: error as Error });
      }
      counters.filesProcessed++;
      reporter.progress(counters);
    };

    await runBounded(work, this.concurrency, signal, handle);

    const toDelete = vanished.filter((book) => !claimed.has(book.id)).map((book) => book.id);
    signal.throwIfAborted();
    const unmounted = library.rootMountPoint && !mountedNow;
    // A targeted scan that finds a folder empty saw a folder removed, not a lost library.
    const found = scope ? Number.POSITIVE_INFINITY : walk.files.length;
    this.guardRemovals(toDelete.length, catalogue.filter((book) => !book.deleted).length, found, unmounted, confirmRemovals, counters);
    await retryTransient(
      async () => {
        if (toDelete.length > 0) await this.repositories.catalogue.softDelete(toDelete);
        counters.booksDeleted = toDelete.length;
        await this.repositories.catalogue.removeEmptySeries(library.id);
      },
      signal,
      (cause, attempt) => log.warn("scan: transient failure while removing vanished books, retrying", { cause, attempt }),
      this.options.transientRetryMs,
    );
    for (const book of vanished) if (!claimed.has(book.id)) touched.add(book.seriesId);
    await retryTransient(
      async () => {
        // A deep scan settles every series (after an upgrade, the rule reaches the whole
        // catalogue); any scan places books catalogued before positions existed.
        const everySeries = mode === "deep" ? await this.repositories.settlement.seriesOf(library.id) : [];
        const unplaced = await this.repositories.settlement.seriesWithUnplacedBooks(library.id);
        const renames = await this.settlement.settle([...touched, ...everySeries, ...unplaced], signal);
        counters.seriesRenamed = renames.length;
      },
      signal,
      (cause, attempt) => log.warn("scan: transient failure while settling series, retrying", { cause, attempt }),
      this.options.transientRetryMs,
    );
    await fillMissingDocumentIds(this.repositories, library.id, signal, log);
    if (mountedNow !== library.rootMountPoint) await this.repositories.libraries.recordMountPoint(library.id, mountedNow);
    reporter.progress(counters);
  }

  /**
   * A share that vanished (or a root that came back empty) far beyond normal deletions is far
   * more likely an unmounted or failing disk than a user's decision: the books stay until an
   * admin confirms (POST /libraries/{id}/scan/confirm-removals).
   */
  private guardRemovals(removals: number, present: number, found: number, unmounted: boolean, confirmed: boolean, counters: ScanCounters) {
    if (removals === 0 || confirmed) return;
    const emptied = found === 0;
    if (!emptied && !unmounted && removals / present <= this.options.maxRemovalShare) return;
    counters.removalsHeld = removals;
    const what = unmounted
      ? "the library folder was a mount point at the last scan and is not mounted now (an unmounted share?)"
      : emptied
      ? "the library folder is empty (an unmounted share?)"
      : `${removals} of ${present} books (${Math.round((removals / present) * 100)}%) vanished in one scan, more than the allowed ${Math.round(this.options.maxRemovalShare * 100)}%`;
    throw new SuspiciousScan(
      `suspicious scan: ${what}; no book was removed. Check the library folder, then rescan, or confirm the removals with POST /api/v1/libraries/{id}/scan/confirm-removals`,
    );
  }

  /** Re-reads one book's file into its existing record (same id, progress kept). */
  async reanalyze(library: LibraryRecord, bookId: string, filePath: string): Promise<void> {
    let info;
    try {
      const resolution = await resolveWithin(await realpath(library.path), filePath);
      if (resolution.kind === "outside") throw new DomainError("Conflict", "the book's file now leads outside its library");
      info = await stat(filePath);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw new DomainError("Conflict", "the book's file is missing; a scan will soft-delete the book");
    }
    const file = { path: filePath, size: info.size, modifiedAt: Math.trunc(info.mtimeMs) };
    const signal = new AbortController().signal;
    const digests = await fileDigests(filePath, signal);
    const before = await this.repositories.settlement.seriesOfBooks([bookId]);
    const after = await this.catalogueFile(library, file, digests, bookId, signal, { progress: () => undefined, bookChanged: () => undefined }, {
      ...ZERO_COUNTERS,
    }, new Map());
    await this.settlement.settle([...before, after.seriesId]);
  }

  /**
   * The book's series, created when new (its fields are settled at the end of the scan);
   * within one scan (`written`), looked up once per series key.
   */
  private async seriesOf(libraryId: string, identity: SeriesIdentity, written: SeriesMemo): Promise<{ id: string; created: boolean }> {
    const known = written.get(identity.seriesKey);
    if (known) return { id: (await known.series).id, created: false };
    const series = this.repositories.catalogue.upsertSeries(libraryId, identity);
    // Remembered before it is written, so the books met at the same moment wait for this one
    // write; a write that fails is forgotten, and the book's retry writes again.
    written.set(identity.seriesKey, { series });
    return series.catch((error) => {
      if (written.get(identity.seriesKey)?.series === series) written.delete(identity.seriesKey);
      throw error;
    });
  }

  /** The plugin whose extension the file carries, for a file whose content nobody recognised. */
  private guessFormat(path: string) {
    const extension = extname(path).slice(1).toLowerCase();
    const plugin = this.formats.plugins.find((candidate) => candidate.extensions.includes(extension));
    return { format: plugin?.id ?? extension, mediaType: plugin?.mediaTypes[0] ?? "application/octet-stream" };
  }

  /** Same content at a known book: only where and when the file is changes. */
  private async relocate(book: BookSnapshot, file: DiscoveredFile) {
    await this.repositories.catalogue.relocateBook(book.id, {
      seriesId: book.seriesId,
      filePath: file.path,
      fileSize: file.size,
      fileModifiedAt: file.modifiedAt,
    });
  }

  /**
   * Analyses the file and stores it as a new book, or into the existing book `bookId`; returns
   * the book's series and whether its record changed (a new book's always does).
   * `seriesUpserted`: the scan's series already written (see seriesOf).
   */
  private async catalogueFile(
    library: LibraryRecord,
    file: DiscoveredFile,
    digests: FileDigests,
    bookId: string | undefined,
    signal: AbortSignal,
    reporter: ScanReporter,
    counters: ScanCounters,
    seriesUpserted: SeriesMemo,
  ): Promise<{ seriesId: string; changed: boolean }> {
    const analysis = await this.formats.analyze(file.path, { signal });
    signal.throwIfAborted();
    // A reader that failed on a full disk or a lack of handles says nothing about the book.
    const transient = analysis.errors.find((error) => transientCause(error));
    if (transient) throw transient;
    const description = describeBook(library.path, file.path, analysis, this.guessFormat(file.path));
    const series = await this.seriesOf(
      library.id,
      seriesFor(library.seriesStrategy, {
        libraryRoot: library.path,
        filePath: file.path,
        metadata: description.metadata,
        seriesSource: description.sources.series,
      }),
      seriesUpserted,
    );
    if (series.created) counters.seriesCreated++;
    const saved = await this.repositories.catalogue.saveBook(
      { libraryId: library.id, bookId },
      { ...description.content, seriesId: series.id, fileHash: digests.sha256, partialMd5: digests.partialMd5, filePath: file.path, fileSize: file.size, fileModifiedAt: file.modifiedAt },
      description.pages,
      description.errors,
    );
    // Counted once stored, so the counter matches what /books/errors lists.
    if (description.errors.length > 0) counters.errors++;
    // Also when unchanged: a deep scan remakes thumbnails that went missing.
    reporter.bookChanged(saved.id);
    return { seriesId: series.id, changed: saved.changed };
  }
}

/** The series a scan has written (or is writing), by series key. */
type SeriesMemo = Map<string, { series: Promise<{ id: string }> }>;

/** Runs `handle` over `items` (with each one's index) with at most `limit` at a time; stops starting new ones once aborted. */
async function runBounded<T>(items: T[], limit: number, signal: AbortSignal, handle: (item: T, index: number) => Promise<void>) {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      signal.throwIfAborted();
      try {
        const index = next++;
        await handle(items[index]!, index);
      } catch (error) {
        failed = true; // the other workers finish their item and stop
        throw error;
      }
      // Let waiting requests run between books: on SQLite every query shares this thread.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  // Settle every worker before returning: after a cancel, none may still be writing when the
  // scan is reported cancelled (or the next scan of the library starts).
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
}

/**
 * Gives the present books of a library that have no document ids yet (catalogued before
 * Longbox computed them) their ids, so every book can be synced without a deep scan. A file
 * that cannot be read is left for the next scan.
 */
async function fillMissingDocumentIds(repositories: Repositories, libraryId: string, signal: AbortSignal, log: Logger): Promise<void> {
  for (const book of await repositories.catalogue.booksWithoutDocumentIds(libraryId)) {
    signal.throwIfAborted();
    try {
      await repositories.catalogue.setDocumentIds(book.id, await documentIdOf(book.filePath, signal), book.filePath);
    } catch (error) {
      log.warn("scan: KOReader document id not computed", { path: book.filePath, error: error as Error });
    }
  }
}
