/**
 * Answers of hot-path reads (the book behind a page request under a viewer's sharing-tag
 * grants; the API key and the account behind a request), reused while nothing can have changed
 * them: no transaction of this process has ended since the read began (Database.writeGeneration),
 * and for at most `maxAgeMs`, which bounds how long a change made by ANOTHER process (a second
 * server on the same PostgreSQL) goes unseen. Every write of this process goes through a
 * transaction, so revoking a grant, deleting a key, disabling an account or removing a book
 * takes effect at once. A change another process announces (src/events/credential-events.ts)
 * ends the reuse through `forgetAll`. Bounded; the oldest entry goes first.
 */
import type { Database } from "../database";

interface RecentRead<V> {
  value: V;
  generation: number;
  epoch: number;
  readAt: number;
}

export class RecentReads<V> {
  private readonly entries = new Map<string, RecentRead<V>>();
  /** Moved by forgetAll: a read that began before it is not reused, even one still under way. */
  private epoch = 0;

  constructor(
    private readonly database: Pick<Database, "writeGeneration">,
    private readonly maxEntries = 10_000,
    private readonly maxAgeMs = 2000,
  ) {}

  async get(key: string, read: () => Promise<V>): Promise<V> {
    const known = this.entries.get(key);
    const now = Date.now();
    if (known && known.generation === this.database.writeGeneration() && known.epoch === this.epoch && now - known.readAt < this.maxAgeMs) {
      return known.value;
    }
    const generation = this.database.writeGeneration();
    const epoch = this.epoch;
    const value = await read();
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, generation, epoch, readAt: now });
    return value;
  }

  /** Nothing read so far is reused: another process changed what these reads answer. */
  forgetAll(): void {
    this.epoch++;
    this.entries.clear();
  }
}
