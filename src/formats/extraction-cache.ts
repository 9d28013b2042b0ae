/**
 * A size-capped folder of extracted archives, for containers that cannot reach one entry
 * without decompressing everything before it (solid 7z blocks, .tar.xz): the book is extracted
 * once into <dir>/<key>/ and later pages are read from there. The key names the book's path,
 * size and modification time, so a changed file gets a fresh extraction and the stale one ages
 * out. Folders are evicted least recently used first when the total passes the cap (down to
 * 90% of it, src/storage/size-capped-index.ts), never while a caller is using them; with a cap
 * of 0 every extraction is removed as soon as its caller is done. Each use touches the folder's modification time, so the order
 * survives a restart.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, rename, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { type CachedItem, SizeCappedIndex } from "../storage/size-capped-index.ts";

interface CachedFolder extends CachedItem {
  users: number;
}

type Folders = SizeCappedIndex<CachedFolder>;

const TEMPORARY_SUFFIX = ".partial";

export class ExtractionCache {
  private index: Promise<Folders> | undefined;
  private readonly filling = new Map<string, Promise<void>>();

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /** The cache key of a book file: its path, size and modification time. */
  static async keyFor(path: string): Promise<string> {
    const info = await stat(path);
    return createHash("sha256").update(`${path}\0${info.size}\0${info.mtimeMs}`).digest("hex").slice(0, 32);
  }

  /** Whether `key`'s extraction is in the cache (it may still be evicted before a `use`). */
  async has(key: string): Promise<boolean> {
    return (await this.folders()).get(key) !== undefined;
  }

  /**
   * Runs `work` on the folder that holds `key`'s extraction, filling it first with `fill` (given
   * an empty folder) when it is missing. Concurrent callers of one key share one extraction.
   */
  async use<T>(key: string, fill: (folder: string) => Promise<void>, work: (folder: string) => Promise<T>): Promise<T> {
    const folders = await this.folders();
    const folder = join(this.dir, key);
    let entry = folders.get(key);
    if (!entry) {
      let filling = this.filling.get(key);
      if (!filling) {
        filling = this.fill(key, folder, fill).finally(() => this.filling.delete(key));
        this.filling.set(key, filling);
      }
      await filling;
      entry = folders.get(key);
      if (!entry) throw new Error(`The extraction of ${key} was evicted before it could be used`);
    }
    entry.users++;
    entry.lastUsed = Date.now();
    await utimes(folder, new Date(), new Date(entry.lastUsed)).catch(() => undefined);
    try {
      return await work(folder);
    } finally {
      entry.users--;
      await this.evict(folders);
    }
  }

  private async fill(key: string, folder: string, fill: (folder: string) => Promise<void>): Promise<void> {
    const folders = await this.folders();
    const partial = `${folder}${TEMPORARY_SUFFIX}`;
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    try {
      await fill(partial);
      await rm(folder, { recursive: true, force: true });
      await rename(partial, folder);
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      throw error;
    }
    folders.set(key, { size: await folderSize(folder), lastUsed: Date.now(), users: 0 });
  }

  /** Removes the least recently used folders over the cap, never one in use or being filled. */
  private async evict(folders: Folders): Promise<void> {
    for (const [key] of folders.evictions((key, folder) => folder.users > 0 || this.filling.has(key))) {
      await rm(join(this.dir, key), { recursive: true, force: true });
    }
  }

  private folders(): Promise<Folders> {
    this.index ??= this.load();
    return this.index;
  }

  /** The index from what an earlier run left (interrupted extractions are removed). */
  private async load(): Promise<Folders> {
    await mkdir(this.dir, { recursive: true });
    const folders: Folders = new SizeCappedIndex(this.maxBytes);
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      if (name.endsWith(TEMPORARY_SUFFIX)) {
        await rm(path, { recursive: true, force: true });
        continue;
      }
      const info = await stat(path);
      if (!info.isDirectory()) continue;
      folders.set(name, { size: await folderSize(path), lastUsed: info.mtimeMs, users: 0 });
    }
    await this.evict(folders);
    return folders;
  }
}

async function folderSize(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}
