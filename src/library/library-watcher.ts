/**
 * Libraries that follow the disk: file-system events (Bun's own fs.watch, recursive, which is
 * inotify on Linux and needs no native addon in the single executable) and, for network mounts
 * where no event arrives, an optional comparison of the tree every `pollSeconds`. Changes are
 * batched per folder; once the library has been quiet for the quiet window, the changed folders
 * are checked to have settled (no book file still growing or being touched) and handed to the
 * scan service as one targeted scan (trigger `watch`), which applies the same rules as a full
 * scan to those folders only. While a scan of the library runs, the batch waits for the next
 * window instead of queueing more scans. When events are lost (the watch limit, a buffer
 * overflow, an unreadable root) the watcher says so in the log, asks for a normal scan, and
 * falls back to polling: it never stops silently.
 *
 * A library made through another process reaches this one up to a refresh later
 * (LibraryRefresher); what changed in its folder between its creation and the start of its
 * watch was seen by nobody, so its whole folder is handed to the first targeted scan (after a
 * scan that runs, e.g. its first one). A watch started again (its settings changed) keeps the
 * folders still waiting for a scan.
 */
import { type FSWatcher, watch } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, extname, join } from "node:path";
import type { LibraryRecord } from "../db";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import type { LibraryObserver } from "./libraries";
import type { ScanService } from "./scans";
import { type DiscoveredFile, isIgnoredPath, walkLibrary } from "./walker";

export interface WatchOptions {
  /** scanner.watch_enabled: false turns watching and polling off for every library. */
  enabled: boolean;
  /** How long a library must be quiet before its changed folders are scanned. */
  quietMs: number;
  /** Book file extensions (lower case, no dot). */
  extensions: ReadonlySet<string>;
}

/** Polling interval taken when events are lost and the library had none configured. */
const FALLBACK_POLL_SECONDS = 60;
/** The settle check looks twice, this far apart (at most), for files still being written. */
const MAX_SETTLE_MS = 2000;

export class LibraryWatcher implements LibraryObserver {
  private readonly watched = new Map<string, WatchedLibrary>();
  /**
   * Only a process that runs the jobs watches (start() is called there alone); the libraries
   * come through libraryChanged, from LibraryService and, for every library and changes made
   * through other processes, from the LibraryRefresher.
   */
  private started = false;
  private stopped = false;

  constructor(
    private readonly scans: ScanService,
    private readonly log: Logger,
    private readonly options: WatchOptions,
  ) {}

  start(): void {
    this.started = true;
  }

  stop(): void {
    this.stopped = true;
    for (const watched of this.watched.values()) watched.close();
    this.watched.clear();
  }

  libraryChanged(library: LibraryRecord, createdElsewhere = false): void {
    if (!this.started || this.stopped || !this.options.enabled) return;
    const previous = this.watched.get(library.id);
    const waiting = previous?.library.path === library.path ? previous.waitingPaths() : [];
    this.libraryRemoved(library.id);
    const { watch: events = true, pollSeconds = null } = library.scanningConfig;
    if (!events && !pollSeconds) return;
    const watched = new WatchedLibrary(library, events, pollSeconds, this.scans, this.log.child({ libraryId: library.id }), this.options);
    this.watched.set(library.id, watched);
    watched.start(createdElsewhere ? [...waiting, library.path] : waiting);
  }

  libraryRemoved(libraryId: string): void {
    this.watched.get(libraryId)?.close();
    this.watched.delete(libraryId);
  }
}

class WatchedLibrary {
  /** Folders (or removed paths) changed since the last targeted scan was requested. */
  private readonly dirty = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private events: FSWatcher | undefined;
  private poller: ReturnType<typeof setInterval> | undefined;
  private lastPoll: Map<string, string> | undefined;
  private flushing = false;
  private closed = false;

  constructor(
    readonly library: LibraryRecord,
    private readonly useEvents: boolean,
    private readonly pollSeconds: number | null,
    private readonly scans: ScanService,
    private readonly log: Logger,
    private readonly options: WatchOptions,
  ) {}

  /** `waiting`: changed paths no scan has taken yet (seen before this watch began). */
  start(waiting: readonly string[]): void {
    if (this.useEvents) this.watchEvents();
    if (this.pollSeconds) this.startPolling(this.pollSeconds);
    if (waiting.length === 0) return;
    for (const path of waiting) this.dirty.add(path);
    this.arm();
  }

  waitingPaths(): string[] {
    return [...this.dirty];
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.poller);
    this.events?.close();
  }

  private watchEvents(): void {
    try {
      this.events = watch(this.library.path, { recursive: true }, (_event, name) => {
        // No name: the queue overflowed, or the watched folder itself went away (Bun passes undefined).
        if (!name) this.eventsLost(new Error("an event without a file name (queue overflow, or the library folder went away)"));
        else void this.changed(join(this.library.path, name.toString()));
      });
      this.events.on("error", (error) => this.eventsLost(error));
    } catch (error) {
      this.eventsLost(error as Error);
    }
  }

  /** Events can no longer be trusted: a normal scan catches up, polling takes over. */
  private eventsLost(error: Error): void {
    if (this.closed) return;
    this.events?.close();
    this.events = undefined;
    const pollSeconds = this.pollSeconds ?? FALLBACK_POLL_SECONDS;
    this.log.warn("watching: file-system events lost; running a normal scan and polling the library instead", {
      path: this.library.path,
      cause: (error as NodeJS.ErrnoException).code ?? error.message,
      pollSeconds,
    });
    this.scans.request(this.library.id, "normal", "watch").catch((failure: unknown) => {
      if (!(failure instanceof DomainError && failure.kind === "Conflict")) {
        this.log.error("watching: the catch-up scan could not be requested", { error: failure as Error });
      }
    });
    if (!this.poller) this.startPolling(pollSeconds);
  }

  /** A path changed: its folder (for a book file) or itself (a folder, or something removed) is dirty. */
  private async changed(path: string): Promise<void> {
    if (this.closed || isIgnoredPath(this.library.path, path)) return;
    let dirty = path;
    if (this.options.extensions.has(extname(path).slice(1).toLowerCase())) dirty = dirname(path);
    else {
      const info = await stat(path).catch(() => null);
      // Another kind of file (a cover image, a partial download): nothing for the catalogue.
      if (info?.isFile()) return;
    }
    this.dirty.add(dirty);
    this.arm();
  }

  /** (Re)starts the quiet window: every new change pushes the scan back. */
  private arm(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.options.quietMs);
  }

  private async flush(): Promise<void> {
    if (this.closed || this.flushing || this.dirty.size === 0) return;
    this.flushing = true;
    try {
      const paths = outermost([...this.dirty]);
      if (!(await this.settled(paths))) {
        this.log.debug("watching: files are still being written; waiting", { paths });
        return this.arm();
      }
      if (!(await this.scans.requestPaths(this.library.id, paths))) return this.arm(); // a scan runs: next window
      for (const path of paths) this.dirty.delete(path);
      // Paths nested under a flushed one were covered by it.
      for (const path of this.dirty) if (paths.some((flushed) => path.startsWith(flushed + "/"))) this.dirty.delete(path);
      if (this.dirty.size > 0) this.arm();
    } catch (error) {
      this.log.warn("watching: the changed folders could not be handed to a scan; retrying", { error: error as Error });
      this.arm();
    } finally {
      this.flushing = false;
    }
  }

  /**
   * No book file under `paths` was modified within the quiet window, and none changes size or
   * modification time over a short second look (a copy that keeps old times, `cp -p`).
   */
  private async settled(paths: string[]): Promise<boolean> {
    const look = async () => (await walkLibrary(this.library.path, this.options.extensions, undefined, paths)).files;
    const before = await look();
    await Bun.sleep(Math.min(this.options.quietMs / 2, MAX_SETTLE_MS));
    const after = await look();
    const now = Date.now();
    // A time in the future (a clock skewed NAS) cannot hold a folder back for longer than that.
    const recent = after.some((file) => now - file.modifiedAt < this.options.quietMs && file.modifiedAt <= now + 1000);
    return !recent && sameFingerprints(fingerprint(before), fingerprint(after));
  }

  private startPolling(seconds: number): void {
    this.poller = setInterval(() => void this.poll(), seconds * 1000);
    void this.poll();
  }

  /** Compares the tree with the last look; every file that appeared, changed or went marks its folder. */
  private async poll(): Promise<void> {
    if (this.closed) return;
    try {
      const current = fingerprint((await walkLibrary(this.library.path, this.options.extensions)).files);
      const previous = this.lastPoll;
      this.lastPoll = current;
      if (!previous) return;
      const changed = [...current].filter(([path, print]) => previous.get(path) !== print).map(([path]) => path);
      const removed = [...previous.keys()].filter((path) => !current.has(path));
      for (const path of [...changed, ...removed]) this.dirty.add(dirname(path));
      if (changed.length + removed.length > 0) this.arm();
    } catch (error) {
      this.log.warn("watching: polling the library failed", { error: error as Error });
    }
  }
}

function fingerprint(files: DiscoveredFile[]): Map<string, string> {
  return new Map(files.map((file) => [file.path, `${file.size}:${file.modifiedAt}`]));
}

function sameFingerprints(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, print]) => b.get(path) === print);
}

/** The paths that are not inside another one of the list. */
function outermost(paths: string[]): string[] {
  return paths.filter((path) => !paths.some((other) => other !== path && path.startsWith(other + "/")));
}
