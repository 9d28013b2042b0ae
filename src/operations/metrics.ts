/**
 * Service metrics, as JSON (the API's default) and as the Prometheus text exposition. Each
 * server has its own prom-client Registry (tests run several servers in one process, so the
 * global default registry is never used).
 *
 * - HTTP: requests and latency by method, route template and status, recorded by the HTTP layer
 *   (src/http/metrics-hook.ts).
 * - Inventory: libraries, series, books and bytes per format, read from the database at scrape
 *   time. Like every other count it follows the caller's sharing-tag visibility, so it lives in a
 *   registry made for the one scrape and merged with the server's.
 * - Scans and thumbnails: read at scrape time; for admins only (AccessService.seesServerInternals),
 *   since they are server-wide and count files in series hidden from other users.
 * - Process memory and uptime: read at scrape time.
 */
import { Counter, Gauge, Registry } from "prom-client";
import type { AccessService } from "../access/visibility";
import type { Inventory, Repositories, ScanState, UserRecord } from "../db";
import type { ThumbnailQueue } from "../library/thumbnails";
import { VERSION } from "../version";
import { HttpRequestStats, type HttpRouteStats } from "./http-request-stats";

export interface HttpObservation {
  method: string;
  /** The route template (`/api/v1/books/:id`), or "unmatched"; never a raw path. */
  route: string;
  status: number;
  seconds: number;
}

export interface ScanMetrics {
  running: number;
  pending: number;
  completed: number;
  failed: number;
  cancelled: number;
  lastCompletedAt: string | null;
  thumbnailsPending: number;
  thumbnailsMade: number;
  thumbnailsFailed: number;
}

export interface HttpRequestCount {
  method: string;
  route: string;
  status: number;
  count: number;
}

export interface MetricsSnapshot {
  inventory: Inventory;
  /** Admins only. */
  scans?: ScanMetrics;
  http: { requests: HttpRequestCount[]; latency: { bucketsSeconds: number[]; routes: HttpRouteStats[] } };
  process: { rssBytes: number; heapUsedBytes: number; uptimeSeconds: number; version: string };
}

type Caller = Pick<UserRecord, "id" | "role">;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SCAN_STATES: ScanState[] = ["pending", "running", "completed", "failed", "cancelled"];

export class Metrics {
  private readonly registry = new Registry();
  /** Scan and thumbnail gauges, merged into admins' scrapes only. */
  private readonly scanRegistry = new Registry();
  private readonly http = new HttpRequestStats(LATENCY_BUCKETS);

  /** `text/plain; version=0.0.4; charset=utf-8` */
  readonly contentType = this.registry.contentType;

  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
    private readonly thumbnails: ThumbnailQueue,
  ) {
    this.http.register(
      this.registry,
      { name: "longbox_http_requests_total", help: "HTTP requests answered, by method, route template and status" },
      {
        name: "longbox_http_request_duration_seconds",
        help: "Time from receiving a request to finishing its response, by method, route template and status",
      },
    );
    this.registerOperationalGauges();
  }

  recordHttpRequest({ method, route, status, seconds }: HttpObservation): void {
    this.http.record(method, route, status, seconds);
  }

  /** The Prometheus text exposition, inventory as the caller may see it. */
  async prometheus(caller: Caller): Promise<string> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    const inventory = inventoryRegistry(() => this.repositories.inventory.inventory(seriesVisible));
    const scans = this.access.seesServerInternals(caller) ? [this.scanRegistry] : [];
    return Registry.merge([this.registry, ...scans, inventory]).metrics();
  }

  async snapshot(caller: Caller): Promise<MetricsSnapshot> {
    const seriesVisible = await this.access.seriesVisibility(caller);
    const [inventory, scans, http] = await Promise.all([
      this.repositories.inventory.inventory(seriesVisible),
      this.access.seesServerInternals(caller) ? this.scanMetrics() : undefined,
      this.httpMetrics(),
    ]);
    const memory = process.memoryUsage();
    return {
      inventory,
      ...(scans && { scans }),
      http,
      process: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed, uptimeSeconds: process.uptime(), version: VERSION },
    };
  }

  private async scanMetrics(): Promise<ScanMetrics> {
    const { byStatus, lastCompletedAt } = await this.repositories.scans.summary();
    return {
      ...byStatus,
      lastCompletedAt: lastCompletedAt?.toISOString() ?? null,
      thumbnailsPending: await this.thumbnails.countPending(),
      thumbnailsMade: this.thumbnails.made,
      thumbnailsFailed: this.thumbnails.failed,
    };
  }

  private httpMetrics(): MetricsSnapshot["http"] {
    const routes = this.http.snapshot();
    const requests = routes.map(({ method, route, status, count }) => ({ method, route, status, count }));
    return { requests, latency: { bucketsSeconds: LATENCY_BUCKETS, routes } };
  }

  /** Scans, thumbnails (admins' registry) and the process: read when scraped. */
  private registerOperationalGauges(): void {
    const adminOnly = [this.scanRegistry];
    const scans = () => this.repositories.scans.summary();
    new Gauge({
      name: "longbox_scans",
      help: "Library scans by state (pending and running now; completed, failed and cancelled so far)",
      labelNames: ["status"],
      registers: adminOnly,
      async collect() {
        const { byStatus } = await scans();
        for (const status of SCAN_STATES) this.set({ status }, byStatus[status]);
      },
    });
    new Gauge({
      name: "longbox_scan_last_completed_timestamp_seconds",
      help: "When the latest successful scan finished (Unix time; 0 when none has)",
      registers: adminOnly,
      async collect() {
        const { lastCompletedAt } = await scans();
        this.set(lastCompletedAt ? lastCompletedAt.getTime() / 1000 : 0);
      },
    });
    const thumbnails = this.thumbnails;
    new Gauge({
      name: "longbox_thumbnails_pending",
      help: "Thumbnails waiting or being made in the job queue (every process)",
      registers: adminOnly,
      async collect() {
        this.set(await thumbnails.countPending());
      },
    });
    // This process's totals (the queue is shared); these counters mirror them at scrape time.
    new Counter({
      name: "longbox_thumbnails_made_total",
      help: "Thumbnails made since the start",
      registers: adminOnly,
      collect() {
        this.reset();
        this.inc(thumbnails.made);
      },
    });
    new Counter({
      name: "longbox_thumbnails_failed_total",
      help: "Thumbnails that could not be made since the start",
      registers: adminOnly,
      collect() {
        this.reset();
        this.inc(thumbnails.failed);
      },
    });
    const registers = [this.registry];
    new Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory size in bytes",
      registers,
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
    new Gauge({
      name: "nodejs_heap_size_used_bytes",
      help: "JavaScript heap in use, in bytes",
      registers,
      collect() {
        this.set(process.memoryUsage().heapUsed);
      },
    });
    new Gauge({
      name: "process_start_time_seconds",
      help: "Start time of the process since the Unix epoch, in seconds",
      registers,
      collect() {
        this.set(Math.round(Date.now() / 1000 - process.uptime()));
      },
    });
    new Gauge({ name: "longbox_build_info", help: "The running version (always 1)", labelNames: ["version"], registers }).set({ version: VERSION }, 1);
  }
}

/** Inventory gauges for one scrape; `load` runs once however many gauges ask. */
function inventoryRegistry(load: () => Promise<Inventory>): Registry {
  const registry = new Registry();
  const registers = [registry];
  let loaded: Promise<Inventory> | undefined;
  const inventory = () => (loaded ??= load());
  const total = (name: string, help: string, pick: (inventory: Inventory) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(pick(await inventory()));
      },
    });
  const perFormat = (name: string, help: string, pick: (books: number, bytes: number) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["format"],
      registers,
      async collect() {
        for (const [format, { books, bytes }] of Object.entries((await inventory()).byFormat)) this.set({ format }, pick(books, bytes));
      },
    });
  total("longbox_libraries", "Libraries", (i) => i.libraries);
  total("longbox_series", "Series the caller may see", (i) => i.series);
  total("longbox_books_with_thumbnail", "Present books the caller may see that have a thumbnail (made by any process)", (i) => i.booksWithThumbnail);
  total("longbox_books_deleted", "Soft-deleted books (file gone) the caller may see", (i) => i.deletedBooks);
  perFormat("longbox_books", "Present books the caller may see, by file format", (books) => books);
  perFormat("longbox_book_file_bytes", "Size of the present books' files, by file format", (_, bytes) => bytes);
  return registry;
}
