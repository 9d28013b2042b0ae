/**
 * The heartbeat of the leased rows (scans, jobs: src/db/repositories/lease.ts) a process works
 * on: while it holds any, it renews their leases every `intervalMs` and tells each row's `lost`
 * when it no longer holds it (taken over after this process stalled past its lease, or ended or
 * cancelled elsewhere). With a `watch`, it also reads every `watch.everyMs` (without writing)
 * which rows it still holds, so a row lost elsewhere (a scan cancelled through another process)
 * is noticed sooner than the next renewal. While the database is away the next beat tries
 * again; a lease that runs out meanwhile lets another process take the row over. `lost` may be
 * told more than once (a renewal and a read that both find the row gone).
 */
/** Renews (a write) or reads (no write) the leases of these rows; resolves with the ids still held. */
type HeldCheck = (ids: readonly string[]) => Promise<Set<string>>;

export class LeaseHeartbeat {
  /** The rows held, and what to do when one is lost. */
  private readonly held = new Map<string, () => void>();
  private timers: ReturnType<typeof setInterval>[] = [];

  constructor(
    /** Renews the leases of these rows; resolves with the ids still held. */
    private readonly renew: HeldCheck,
    private readonly intervalMs: number,
    /** Reads which of these rows are still held, every `everyMs` (when that is more often than renewals). */
    private readonly watch?: { stillHeld: HeldCheck; everyMs: number },
  ) {}

  get size(): number {
    return this.held.size;
  }

  hold(id: string, lost: () => void = () => undefined): void {
    this.held.set(id, lost);
    if (this.timers.length > 0) return;
    this.timers.push(setInterval(() => void this.beat(this.renew), this.intervalMs));
    const watch = this.watch;
    if (watch && watch.everyMs < this.intervalMs) this.timers.push(setInterval(() => void this.beat(watch.stillHeld), watch.everyMs));
  }

  /** The row is done with (ended, or released): no more renewals. */
  drop(id: string): void {
    this.held.delete(id);
    if (this.held.size > 0) return;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  private async beat(check: HeldCheck): Promise<void> {
    const ids = [...this.held.keys()];
    let still: Set<string>;
    try {
      still = await check(ids);
    } catch {
      return; // The database is away: the next beat tries again.
    }
    for (const id of ids) {
      const lost = this.held.get(id);
      if (lost && !still.has(id)) lost();
    }
  }
}
