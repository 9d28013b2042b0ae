/**
 * The heartbeat of the leased rows (scans, jobs: src/db/repositories/lease.ts) a process works
 * on: while it holds any, it renews their leases every `intervalMs` and tells each row's `lost`
 * when it no longer holds it (taken over after this process stalled past its lease, or ended or
 * cancelled elsewhere). While the database is away the next beat tries again; a lease that runs
 * out meanwhile lets another process take the row over.
 */
export class LeaseHeartbeat {
  /** The rows held, and what to do when one is lost. */
  private readonly held = new Map<string, () => void>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    /** Renews the leases of these rows; resolves with the ids still held. */
    private readonly renew: (ids: readonly string[]) => Promise<Set<string>>,
    private readonly intervalMs: number,
  ) {}

  get size(): number {
    return this.held.size;
  }

  hold(id: string, lost: () => void = () => undefined): void {
    this.held.set(id, lost);
    this.timer ??= setInterval(() => void this.beat(), this.intervalMs);
  }

  /** The row is done with (ended, or released): no more renewals. */
  drop(id: string): void {
    this.held.delete(id);
    if (this.held.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async beat(): Promise<void> {
    const ids = [...this.held.keys()];
    let still: Set<string>;
    try {
      still = await this.renew(ids);
    } catch {
      return; // The database is away: the next beat tries again.
    }
    for (const id of ids) {
      const lost = this.held.get(id);
      if (lost && !still.has(id)) lost();
    }
  }
}
