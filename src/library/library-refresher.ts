/**
 * Libraries changed through another process (role web, `--workers`, another instance) reach the
 * observers of a process that runs jobs (schedules, the watcher) through one look at the
 * database every `refreshMs`: a library that is new, or whose folder, scanning settings or
 * `updatedAt` differ from the last seen (an operator may edit the settings in the row without
 * moving `updatedAt`), is announced as changed (one new to a look after the first as created
 * elsewhere: the watcher then catches up on its folder); one that is gone as removed. Changes made through this process reach them at once
 * (LibraryService tells its observers, this one included, so they are not announced twice).
 */
import type { LibraryRecord, Repositories } from "../db";
import type { LibraryObserver } from "./libraries";

export class LibraryRefresher implements LibraryObserver {
  /** The libraries the observers know, by id: what they follow of each (`followed`). */
  private readonly known = new Map<string, string>();
  /** Moves with every change made through this process: a look that overlaps one is dropped. */
  private localChanges = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  /**
   * The first look announces what existed at start; a library new to a later look, or made
   * after this process started, was made elsewhere since.
   */
  private looked = false;
  private readonly startedAt = new Date();

  constructor(
    private readonly repositories: Repositories,
    private readonly observers: readonly LibraryObserver[],
    private readonly refreshMs = 5000,
  ) {}

  /** Announces every library, then keeps looking. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  libraryChanged(library: LibraryRecord): void {
    this.localChanges++;
    this.known.set(library.id, followed(library));
  }

  libraryRemoved(libraryId: string): void {
    this.localChanges++;
    this.known.delete(libraryId);
  }

  private async refresh(): Promise<void> {
    const before = this.localChanges;
    let libraries: LibraryRecord[];
    try {
      libraries = await this.repositories.libraries.list();
    } catch {
      return; // The database is away: the observers keep what they have.
    }
    // A change made here meanwhile may be missing from (or newer than) this list: the next look.
    if (this.localChanges !== before) return;
    for (const library of libraries) {
      const seen = followed(library);
      const previous = this.known.get(library.id);
      if (previous === seen) continue;
      this.known.set(library.id, seen);
      const createdElsewhere = previous === undefined && (this.looked || library.createdAt >= this.startedAt);
      for (const observer of this.observers) observer.libraryChanged(library, createdElsewhere);
    }
    this.looked = true;
    const present = new Set(libraries.map((library) => library.id));
    for (const id of [...this.known.keys()]) {
      if (present.has(id)) continue;
      this.known.delete(id);
      for (const observer of this.observers) observer.libraryRemoved(id);
    }
  }
}

/**
 * What the observers act on: the folder and the scanning settings (and any edit through the API).
 * Keys sorted: PostgreSQL's jsonb orders them its own way, unlike the record a create returns.
 */
function followed(library: LibraryRecord): string {
  return JSON.stringify([library.path, library.scanningConfig, library.updatedAt], (_key, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort()) : value,
  );
}
