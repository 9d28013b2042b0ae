/**
 * The scan progress channel behind GET /api/v1/scans/stream. Scans publish their status;
 * each connected client subscribes. Progress is throttled per scan (at most one event every
 * 250 ms, the last state always delivered); lifecycle events are never dropped.
 */
export type ScanEventName = "scan.started" | "scan.progress" | "scan.completed" | "scan.failed" | "scan.cancelled" | "scan.retrying";

export interface ScanEvent<T = unknown> {
  id: number;
  name: ScanEventName;
  data: T;
}

type Listener<T> = (event: ScanEvent<T>) => void;

/** An event as it travels between processes (each process numbers its own stream). */
export interface RelayedScanEvent<T = unknown> {
  name: ScanEventName;
  data: T;
}

interface Subscription<T> {
  listener: Listener<T>;
  /** Called when the channel closes (shutdown), so long-lived streams can end. */
  closed: () => void;
}

const PROGRESS_INTERVAL_MS = 250;

/** `T` is the payload every event carries (the scan status). */
export class ScanEvents<T = unknown> {
  private readonly subscriptions = new Set<Subscription<T>>();
  private readonly outbound = new Set<(event: RelayedScanEvent<T>) => void>();
  private nextId = 1;
  private readonly lastProgressAt = new Map<string, number>();
  private readonly pendingProgress = new Map<string, { data: T; timer: ReturnType<typeof setTimeout> }>();

  subscribe(listener: Listener<T>, closed: () => void): () => void {
    const subscription = { listener, closed };
    this.subscriptions.add(subscription);
    return () => this.subscriptions.delete(subscription);
  }

  /** Events produced in this process (after throttling), for relaying them to other processes. */
  onLocal(relay: (event: RelayedScanEvent<T>) => void): void {
    this.outbound.add(relay);
  }

  /** An event another process produced: to this process's subscribers only, never relayed back. */
  deliver({ name, data }: RelayedScanEvent<T>): void {
    const event = { id: this.nextId++, name, data };
    for (const { listener } of this.subscriptions) listener(event);
  }

  /** Ends every subscription (shutdown: open event streams must not hold the server up). */
  close(): void {
    for (const subscription of [...this.subscriptions]) subscription.closed();
    this.subscriptions.clear();
  }

  /** Lifecycle events: flush any pending progress of the scan first, so order is kept. */
  publish(scanId: string, name: Exclude<ScanEventName, "scan.progress">, data: T): void {
    this.flushProgress(scanId);
    if (name !== "scan.started") this.lastProgressAt.delete(scanId);
    this.emit(name, data);
  }

  progress(scanId: string, data: T): void {
    const pending = this.pendingProgress.get(scanId);
    if (pending) {
      pending.data = data;
      return;
    }
    const wait = (this.lastProgressAt.get(scanId) ?? 0) + PROGRESS_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.lastProgressAt.set(scanId, Date.now());
      this.emit("scan.progress", data);
      return;
    }
    const timer = setTimeout(() => this.flushProgress(scanId), wait);
    this.pendingProgress.set(scanId, { data, timer });
  }

  private flushProgress(scanId: string): void {
    const pending = this.pendingProgress.get(scanId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pendingProgress.delete(scanId);
    this.lastProgressAt.set(scanId, Date.now());
    this.emit("scan.progress", pending.data);
  }

  private emit(name: ScanEventName, data: T): void {
    this.deliver({ name, data });
    for (const relay of this.outbound) relay({ name, data });
  }
}
