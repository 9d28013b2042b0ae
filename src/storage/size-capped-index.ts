/**
 * The bookkeeping of a size-capped cache (the page cache, the extraction cache): what it holds
 * by key with each item's size and last use, the total, and which items to drop when the total
 * passes the cap. Dropping goes least recently used first and down to 90% of the cap, so a full
 * cache does not evict on every insert. The caller removes what it is told to drop from wherever
 * the bytes live.
 */
export interface CachedItem {
  size: number;
  /** Milliseconds since the epoch. */
  lastUsed: number;
}

const EVICT_DOWN_TO = 0.9;

export class SizeCappedIndex<Item extends CachedItem> {
  private readonly items = new Map<string, Item>();
  private totalBytes = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): Item | undefined {
    return this.items.get(key);
  }

  /** Adds or replaces `key`'s item. */
  set(key: string, item: Item): void {
    this.delete(key);
    this.items.set(key, item);
    this.totalBytes += item.size;
  }

  delete(key: string): void {
    const item = this.items.get(key);
    if (!item) return;
    this.items.delete(key);
    this.totalBytes -= item.size;
  }

  /**
   * When the total is over the cap: the items to drop (already out of the index), least
   * recently used first, skipping those `keep` says are in use.
   */
  evictions(keep: (key: string, item: Item) => boolean = () => false): [string, Item][] {
    if (this.totalBytes <= this.maxBytes) return [];
    const dropped: [string, Item][] = [];
    const oldestFirst = [...this.items].sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [key, item] of oldestFirst) {
      if (this.totalBytes <= this.maxBytes * EVICT_DOWN_TO) break;
      if (keep(key, item)) continue;
      this.delete(key);
      dropped.push([key, item]);
    }
    return dropped;
  }
}
