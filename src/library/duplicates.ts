/**
 * Duplicate detection across libraries: by SHA-256 of the file, and by metadata (same series
 * name and number in different libraries). Results are stored; listing filters them through the
 * caller's visibility (a group shows only books the caller may see, and needs two of them).
 *
 * Detection is a leased job (`jobs`, kind `duplicates`, one row: src/jobs/leased-jobs.ts) run by
 * a process that runs jobs, one detection at a time across every process and instance; asking
 * while one is queued joins it, asking while one runs runs it once more afterwards. The asking
 * request waits up to `waitMs` for the outcome, so a detection that is quick answers as it is:
 * it wakes on the job's event (src/events/job-events.ts, relayed from the process that ran it),
 * and looks at the row every `SAFETY_LOOK_MS` for processes no relay joins (separate role web
 * and worker processes on SQLite).
 */
import type { BookView, JobRecord, Repositories } from "../db";
import type { AccessService } from "../access/visibility";
import type { JobEvents } from "../events/job-events";
import { LeasedJobs, type LeasedJobSettings } from "../jobs/leased-jobs";
import type { Logger } from "../logging/logger";
import type { Caller } from "./books";

/** The key of the one duplicate detection job. */
const DETECTION = "all";
/** How often a waiting request looks at the job without an event. */
const SAFETY_LOOK_MS = 1000;

export interface DuplicateGroup {
  id: string;
  kind: "hash" | "metadata";
  key: string;
  books: BookView[];
}

/** The latest detection; the counts (of the groups the caller can see) once it completed. */
export interface DuplicateDetection {
  status: "idle" | JobRecord["status"];
  requestedAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  failureReason: string | null;
  hashGroups: number | null;
  metadataGroups: number | null;
}

export class DuplicateService {
  private readonly jobs: LeasedJobs;

  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
    private readonly jobEvents: JobEvents,
    jobSettings: Omit<LeasedJobSettings, "keepFinished" | "onCount" | "concurrency">,
    log: Logger,
    /** How long `detect` waits for the outcome before answering with the job's state. */
    private readonly waitMs = 30_000,
  ) {
    const detect = async () => {
      const found = await repositories.duplicates.detect();
      log.info("duplicate detection ran", found);
      return undefined;
    };
    this.jobs = new LeasedJobs(repositories, "duplicates", { ...jobSettings, concurrency: 1, keepFinished: true }, detect, log, jobEvents);
  }

  /** This process runs queued detections (role all or worker). */
  start(): Promise<void> {
    return this.jobs.start();
  }

  stop(): Promise<void> {
    return this.jobs.stop();
  }

  /** Queues a detection and waits for it (up to `waitMs`): its state, with the counts once completed. */
  async detect(caller: Caller): Promise<DuplicateDetection> {
    const deadline = Date.now() + this.waitMs;
    // Listening before asking: an outcome written meanwhile is not missed.
    let written = false;
    let wake: () => void = () => undefined;
    const unsubscribe = this.jobEvents.subscribe((event) => {
      if (event.kind !== "duplicates" || event.key !== DETECTION) return;
      written = true;
      wake();
    });
    try {
      await this.repositories.jobs.enqueue("duplicates", [DETECTION]);
      this.jobs.kick();
      let job = await this.repositories.jobs.find("duplicates", DETECTION);
      while (job && (job.status === "pending" || job.status === "running") && Date.now() < deadline) {
        if (!written) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(SAFETY_LOOK_MS, deadline - Date.now()));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        written = false;
        job = await this.repositories.jobs.find("duplicates", DETECTION);
      }
      return this.toDetection(caller, job);
    } finally {
      unsubscribe();
    }
  }

  async detection(caller: Caller): Promise<DuplicateDetection> {
    return this.toDetection(caller, await this.repositories.jobs.find("duplicates", DETECTION));
  }

  private async toDetection(caller: Caller, job: JobRecord | undefined): Promise<DuplicateDetection> {
    let counts = { hashGroups: null as number | null, metadataGroups: null as number | null };
    if (job?.status === "completed") {
      const groups = await this.list(caller);
      const count = (kind: DuplicateGroup["kind"]) => groups.filter((group) => group.kind === kind).length;
      counts = { hashGroups: count("hash"), metadataGroups: count("metadata") };
    }
    return {
      status: job?.status ?? "idle",
      requestedAt: job?.requestedAt.toISOString() ?? null,
      startedAt: job?.startedAt?.toISOString() ?? null,
      completedAt: job?.completedAt?.toISOString() ?? null,
      failureReason: job?.lastError ?? null,
      ...counts,
    };
  }

  async list(caller: Caller): Promise<DuplicateGroup[]> {
    const groups = await this.repositories.duplicates.groups();
    const ids = [...new Set(groups.flatMap((group) => group.bookIds))];
    if (ids.length === 0) return [];
    const seriesVisible = await this.access.seriesVisibility(caller);
    const rows = await this.repositories.books.named({ ids, seriesVisible, deleted: false }, caller.id);
    const byId = new Map(rows.map((book) => [book.id, book]));
    return groups
      .map((group) => ({
        id: group.id,
        kind: group.kind,
        key: group.key,
        books: group.bookIds.flatMap((id) => byId.get(id) ?? []),
      }))
      .filter((group) => group.books.length > 1);
  }
}
