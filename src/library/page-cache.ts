/**
 * A size-capped disk cache for pages that cost real work to make (rendered PDF pages, resized
 * pages). Files live under files.page_cache_dir as <first two key characters>/<key>.<ext>; the
 * extension carries the media type. An in-memory index, rebuilt from the folder on first use,
 * orders entries by last use; each hit also touches the file's modification time, so the order
 * survives a restart without relying on atime (often disabled by noatime mounts). When the
 * total passes the cap, the least recently used files are removed down to 90% of it, so a
 * full cache does not evict on every insert. The cache is best effort: a write that fails (a
 * full disk, no permission) leaves the page uncached, never fails the request that read it.
 */
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PageImage } from "../formats/contract";
import { extensionOf, PAGE_IMAGE_TYPES } from "../formats/images";

interface CacheEntry {
  file: string;
  size: number;
  mediaType: string;
  lastUsed: number;
}

const EVICT_DOWN_TO = 0.9;

export class PageCache {
  private index: Promise<Map<string, CacheEntry>> | undefined;
  private totalBytes = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  async get(key: string): Promise<PageImage | undefined> {
    if (!this.enabled) return undefined;
    const entries = await this.entries();
    const entry = entries.get(key);
    if (!entry) return undefined;
    try {
      const bytes = await Bun.file(entry.file).bytes();
      entry.lastUsed = Date.now();
      await utimes(entry.file, new Date(), new Date(entry.lastUsed)).catch(() => undefined);
      return { bytes, mediaType: entry.mediaType };
    } catch {
      // Removed behind our back (someone emptied the folder): a miss.
      entries.delete(key);
      this.totalBytes -= entry.size;
      return undefined;
    }
  }

  async put(key: string, page: PageImage): Promise<void> {
    if (!this.enabled || page.bytes.length > this.maxBytes) return;
    const extension = extensionFor(page.mediaType);
    if (!extension) return;
    const entries = await this.entries();
    const folder = join(this.dir, key.slice(0, 2));
    const file = join(folder, `${key}.${extension}`);
    try {
      await mkdir(folder, { recursive: true });
      await writeFile(`${file}.tmp`, page.bytes);
      await rename(`${file}.tmp`, file);
    } catch {
      await rm(`${file}.tmp`, { force: true }).catch(() => undefined);
      return;
    }
    const previous = entries.get(key);
    if (previous) this.totalBytes -= previous.size;
    entries.set(key, { file, size: page.bytes.length, mediaType: page.mediaType, lastUsed: Date.now() });
    this.totalBytes += page.bytes.length;
    if (this.totalBytes > this.maxBytes) await this.evict(entries);
  }

  private async evict(entries: Map<string, CacheEntry>): Promise<void> {
    const oldestFirst = [...entries].sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [key, entry] of oldestFirst) {
      if (this.totalBytes <= this.maxBytes * EVICT_DOWN_TO) break;
      entries.delete(key);
      this.totalBytes -= entry.size;
      await rm(entry.file, { force: true });
    }
  }

  private entries(): Promise<Map<string, CacheEntry>> {
    this.index ??= this.load();
    return this.index;
  }

  /** The index from what an earlier run left in the folder (leftover .tmp files are removed). */
  private async load(): Promise<Map<string, CacheEntry>> {
    const entries = new Map<string, CacheEntry>();
    let folders: string[] = [];
    try {
      folders = await readdir(this.dir);
    } catch {
      return entries; // no cache yet
    }
    for (const folder of folders) {
      let names: string[] = [];
      try {
        names = await readdir(join(this.dir, folder));
      } catch {
        continue; // a stray file at the top level
      }
      for (const name of names) {
        const file = join(this.dir, folder, name);
        const mediaType = PAGE_IMAGE_TYPES[extensionOf(name)];
        if (name.endsWith(".tmp") || !mediaType) {
          await rm(file, { force: true });
          continue;
        }
        const info = await stat(file);
        entries.set(name.slice(0, name.lastIndexOf(".")), { file, size: info.size, mediaType, lastUsed: info.mtimeMs });
        this.totalBytes += info.size;
      }
    }
    return entries;
  }
}

function extensionFor(mediaType: string): string | undefined {
  return Object.entries(PAGE_IMAGE_TYPES).find(([, type]) => type === mediaType)?.[0];
}
