/**
 * A size-capped cache for pages that cost real work to make (rendered PDF pages, resized
 * pages). Files live in the page cache store (files.page_cache_dir, or page-cache/ in the
 * bucket) as <first two key characters>/<key>.<ext>; the extension carries the media type. An
 * in-memory index, rebuilt from the store on first use, orders entries by last use; each hit
 * also touches a local file's modification time, so the order survives a restart without
 * relying on atime (often disabled by noatime mounts). Objects in a bucket cannot be touched:
 * after a restart their order is the order they were written in. When the total passes the
 * cap, the least recently used files are removed (src/storage/size-capped-index.ts). The cache is best effort: a write that fails (a full disk, no
 * permission, the bucket away) leaves the page uncached, never fails the request that read it.
 *
 * A bucket is shared by several instances: a page missing from this process's index is looked
 * for there (one listing of its key) before it is rendered, so a page rendered by one instance
 * serves them all. Each instance applies the cap to what it knows of; docs/scaling.md says why
 * the bucket can hold more.
 */
import type { PageImage } from "../formats/contract";
import { extensionOf, PAGE_IMAGE_TYPES } from "../formats/images";
import type { FileStore, ListedFile } from "../storage/file-store";
import { type CachedItem, SizeCappedIndex } from "../storage/size-capped-index";

interface CacheEntry extends CachedItem {
  /** The key in the store: <2 characters>/<key>.<ext>. */
  file: string;
  mediaType: string;
}

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
    const entry = entries.get(key) ?? (this.store.shared ? await this.findShared(entries, key) : undefined);
    if (!entry) return undefined;
    const bytes = await this.store.read(entry.file).catch(() => undefined);
    if (!bytes) {
      // Removed behind our back (someone emptied the folder, another instance evicted it): a miss.
      entries.delete(key);
      return undefined;
    }
    entry.lastUsed = Date.now();
    await this.store.touch(entry.file).catch(() => undefined);
    return { bytes, mediaType: entry.mediaType };
  }

  /** A page another instance put in the shared store: found by listing its key, then indexed. */
  private async findShared(entries: Entries, key: string): Promise<CacheEntry | undefined> {
    try {
      for await (const file of this.store.list(`${key.slice(0, 2)}/${key}.`)) {
        const entry = this.remember(entries, file);
        if (entry) return entry;
      }
    } catch {
      // The bucket did not answer: a miss, the page is rendered.
    }
    return undefined;
  }

  async put(key: string, page: PageImage): Promise<void> {
    if (!this.enabled || page.bytes.length > this.maxBytes) return;
    const extension = extensionFor(page.mediaType);
    if (!extension) return;
    const entries = await this.entries();
    const file = `${key.slice(0, 2)}/${key}.${extension}`;
    try {
      await this.store.write(file, page.bytes, page.mediaType);
    } catch {
      return;
    }
    entries.set(key, { file, size: page.bytes.length, mediaType: page.mediaType, lastUsed: Date.now() });
    for (const [, evicted] of entries.evictions()) await this.store.remove(evicted.file).catch(() => undefined);
  }

  private entries(): Promise<Entries> {
    this.index ??= this.load();
    return this.index;
  }

  /**
   * The index from what earlier runs (and other instances) left in the store; leftover .tmp
   * files and anything else in the key folders that is not a page are removed. A store that cannot be listed (the
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

  /** Adds a listed file to the index: undefined when it is not a cached page. */
  private remember(entries: Entries, file: ListedFile): CacheEntry | undefined {
    const name = file.key.slice(file.key.lastIndexOf("/") + 1);
    const mediaType = PAGE_IMAGE_TYPES[extensionOf(name)];
    if (name.endsWith(".tmp") || !mediaType || !file.key.includes("/")) return undefined;
    const entry = { file: file.key, size: file.size, mediaType, lastUsed: file.modifiedAt.getTime() };
    entries.set(name.slice(0, name.lastIndexOf(".")), entry);
    return entry;
  }
}

function extensionFor(mediaType: string): string | undefined {
  return Object.entries(PAGE_IMAGE_TYPES).find(([, type]) => type === mediaType)?.[0];
}
