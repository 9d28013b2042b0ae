/**
 * A size-capped folder of extracted archives, for containers that cannot reach one entry
 * without decompressing everything before it (solid 7z blocks, .tar.xz): the book is extracted
 * once into <dir>/<key>/ and later pages are read from there. The key names the book's path,
 * size and modification time, so a changed file gets a fresh extraction and the stale one ages
 * out. Folders are evicted least recently used first when the total passes the cap (down to
 * 90% of it), never while a caller is using them; with a cap of 0 every extraction is removed
 * as soon as its caller is done. Each use touches the folder's modification time, so the order
 * survives a restart.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, rename, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";

interface CachedFolder {
  size: number;
  lastUsed: number;
  users: number;
}

const EVICT_DOWN_TO = 0.9;
const TEMPORARY_SUFFIX = ".partial";

export class ExtractionCache {
  private index: Promise<Map<string, CachedFolder>> | undefined;
  private readonly filling = new Map<string, Promise<void>>();
  private totalBytes = 0;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /** The cache key of a book file: its path, size and modification time. */
  static async keyFor(path: string): Promise<string> {
    const info = await stat(path);
    return createHash("sha256").update(`${path}\0${info.size}\0${info.mtimeMs}`).digest("hex").slice(0, 32);
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
    const size = await folderSize(folder);
    folders.set(key, { size, lastUsed: Date.now(), users: 0 });
    this.totalBytes += size;
  }

  private async evict(folders: Map<string, CachedFolder>): Promise<void> {
    if (this.totalBytes <= this.maxBytes) return;
    const oldestFirst = [...folders].sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [key, entry] of oldestFirst) {
      if (this.totalBytes <= this.maxBytes * EVICT_DOWN_TO) break;
      if (entry.users > 0 || this.filling.has(key)) continue;
      folders.delete(key);
      this.totalBytes -= entry.size;
      await rm(join(this.dir, key), { recursive: true, force: true });
    }
  }

  private folders(): Promise<Map<string, CachedFolder>> {
    this.index ??= this.load();
    return this.index;
  }

  /** The index from what an earlier run left (interrupted extractions are removed). */
  private async load(): Promise<Map<string, CachedFolder>> {
    await mkdir(this.dir, { recursive: true });
    const folders = new Map<string, CachedFolder>();
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      if (name.endsWith(TEMPORARY_SUFFIX)) {
        await rm(path, { recursive: true, force: true });
        continue;
      }
      const info = await stat(path);
      if (!info.isDirectory()) continue;
      const size = await folderSize(path);
      folders.set(name, { size, lastUsed: info.mtimeMs, users: 0 });
      this.totalBytes += size;
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
