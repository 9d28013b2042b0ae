/**
 * Recently opened comic archives (and EPUBs), for reading: a reader asks for page after page (file
 * after file) of one book,
 * and opening the archive each time (the ZIP central directory read and parsed again; the whole
 * RAR file read and listed again) cost more than reading the page. Analysis (scans) opens its
 * own, so a scan does not push readers' books out.
 *
 * An archive is reused while its file keeps the size and modification time it had when opened
 * (those the caller has just stat'ed, else one stat here, synchronous: microseconds for a file
 * just read); a changed file is opened anew.
 * Bounded by count and by the memory the archives hold (a RAR archive holds its whole file):
 * the least recently used go first. Concurrent first requests share one opening.
 */
import { statSync } from "node:fs";
import type { FileStamp } from "./contract.ts";

/** What an archive costs to keep open, in bytes. */
export type ArchiveWeight<T> = (archive: T) => number;

interface OpenArchive {
  archive: Promise<unknown>;
  size: number;
  modifiedMs: number;
  bytes: number;
}

const OPEN_ARCHIVES_MAX_COUNT = 32;
const OPEN_ARCHIVES_MAX_BYTES = 256 * 1024 * 1024;

export class OpenArchives {
  /** In use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, OpenArchive>();
  private totalBytes = 0;

  constructor(
    private readonly maxCount = OPEN_ARCHIVES_MAX_COUNT,
    private readonly maxBytes = OPEN_ARCHIVES_MAX_BYTES,
  ) {}

  /**
   * The archive at `path` opened by `open` (kind: the plugin's id), from memory while the file
   * is unchanged; `stamp`: the file's size and modification time if the caller has just stat'ed it.
   */
  async open<T>(kind: string, path: string, open: () => Promise<T>, weight: ArchiveWeight<T>, stamp?: FileStamp): Promise<T> {
    const key = `${kind}\0${path}`;
    const info = stamp ?? statSync(path, { throwIfNoEntry: false });
    const known = this.entries.get(key);
    if (known) {
      this.forget(key, known);
      if (info && known.size === info.size && known.modifiedMs === info.mtimeMs) {
        this.entries.set(key, known); // now the most recently used
        this.totalBytes += known.bytes;
        return known.archive as Promise<T>;
      }
    }
    // A missing file: the opener raises the format's own not-found error.
    if (!info) return open();
    const entry: OpenArchive = { archive: open(), size: info.size, modifiedMs: info.mtimeMs, bytes: 0 };
    this.entries.set(key, entry);
    try {
      const archive = (await entry.archive) as T;
      if (this.entries.get(key) === entry) {
        entry.bytes = weight(archive);
        this.totalBytes += entry.bytes;
        this.evict();
      }
      return archive;
    } catch (error) {
      if (this.entries.get(key) === entry) this.forget(key, entry);
      throw error;
    }
  }

  private forget(key: string, entry: OpenArchive): void {
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxCount && this.totalBytes <= this.maxBytes) break;
      this.forget(key, entry);
    }
  }
}

/** The archives the comic plugins read pages from, and the EPUBs the web reader reads. */
export const openArchives = new OpenArchives();
