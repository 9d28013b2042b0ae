/**
 * A size-capped cache for pages that cost real work to make (rendered PDF pages, resized
 * pages). Files live in the page cache store (files.page_cache_dir, or page-cache/ in the
 * bucket) as <first two key characters>/<key>: a name that follows from the key alone, so a page
 * is found without knowing its media type, which its bytes announce (sniffImageMediaType). An
 * in-memory index, rebuilt from the store on first use, orders entries by last use; each hit
 * also touches a local file's modification time, so the order survives a restart without
 * relying on atime (often disabled by noatime mounts). Objects in a bucket cannot be touched:
 * after a restart their order is the order they were written in. When the total passes the
 * cap, the least recently used files are removed (src/storage/size-capped-index.ts). The cache is best effort: a write that fails (a full disk, no
 * permission, the bucket away) leaves the page uncached, never fails the request that read it.
 *
 * A bucket is shared by several instances: a page missing from this process's index is read
 * from there (one GET of its name, a 404 when nobody has it) before it is rendered, so a page
 * rendered by one instance serves them all; a hit is that one GET too. A local folder is this
 * process's own: a page missing from the index is a miss without looking. Each instance applies
 * the cap to what it knows of; docs/scaling.md says why the bucket can hold more.
 */
import type { PageImage } from "../formats/contract";
import { sniffImageMediaType } from "../formats/images";
import type { FileStore, ListedFile } from "../storage/file-store";
import { type CachedItem, SizeCappedIndex } from "../storage/size-capped-index";

/** The index holds sizes and last uses; the name in the store follows from the key (fileOf). */
type CacheEntry = CachedItem;

type Entries = SizeCappedIndex<CacheEntry>;

export class PageCache {
  private index: Promise<Entries> | undefined;

  constructor(
    private readonly store: FileStore,
    private readonly maxBytes: number,
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  async get(key: string): Promise<PageImage | undefined> {
    if (!this.enabled) return undefined;
    const entries = await this.entries();
    const entry = entries.get(key);
    // Not indexed: in a bucket another instance may have put it there; a local folder is ours.
    if (!entry && !this.store.shared) return undefined;
    const bytes = await this.store.read(fileOf(key)).catch(() => undefined);
    const mediaType = bytes && sniffImageMediaType(bytes);
    if (!bytes || !mediaType) {
      // Never cached, or removed behind our back (someone emptied the folder, another instance
      // evicted it): a miss.
      entries.delete(key);
      return undefined;
    }
    if (entry) {
      entry.lastUsed = Date.now();
      await this.store.touch(fileOf(key)).catch(() => undefined);
    } else {
      entries.set(key, { size: bytes.length, lastUsed: Date.now() });
    }
    return { bytes, mediaType };
  }

  async put(key: string, page: PageImage): Promise<void> {
    if (!this.enabled || page.bytes.length > this.maxBytes) return;
    // What get() reads back must be the same page: only images whose bytes say what they are.
    if (sniffImageMediaType(page.bytes) !== page.mediaType) return;
    const entries = await this.entries();
    try {
      await this.store.write(fileOf(key), page.bytes, page.mediaType);
    } catch {
      return;
    }
    entries.set(key, { size: page.bytes.length, lastUsed: Date.now() });
    for (const [evicted] of entries.evictions()) await this.store.remove(fileOf(evicted)).catch(() => undefined);
  }

  private entries(): Promise<Entries> {
    this.index ??= this.load();
    return this.index;
  }

  /**
   * The index from what earlier runs (and other instances) left in the store; leftover .tmp
   * files and anything else in the key folders that is not a page (among them pages named
   * <key>.<ext> by earlier builds) are removed. A store that cannot be listed (the
   * bucket away) starts an empty index: the cache is best effort.
   */
  private async load(): Promise<Entries> {
    const entries: Entries = new SizeCappedIndex(this.maxBytes);
    try {
      for await (const file of this.store.list()) {
        // Files beside the key folders are not the cache's to remove.
        if (!this.remember(entries, file) && file.key.includes("/")) await this.store.remove(file.key);
      }
    } catch {
      // Nothing more to index.
    }
    return entries;
  }

  /** Adds a listed file to the index: false when it is not a cached page (<2 characters>/<key>). */
  private remember(entries: Entries, file: ListedFile): boolean {
    const key = file.key.slice(file.key.indexOf("/") + 1);
    if (key.includes(".") || fileOf(key) !== file.key) return false;
    entries.set(key, { size: file.size, lastUsed: file.modifiedAt.getTime() });
    return true;
  }
}

/** Where a page is in the store: <first two key characters>/<key>. */
function fileOf(key: string): string {
  return `${key.slice(0, 2)}/${key}`;
}
