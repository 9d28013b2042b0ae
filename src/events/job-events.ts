/**
 * Leased jobs whose runner wrote their outcome (ended, or queued again: src/jobs/leased-jobs.ts),
 * for a request waiting for one (duplicate detection) in any process: the row then says how it
 * went.
 */
import { EventBus } from "./event-bus";

export interface JobEvent {
  kind: string;
  key: string;
}

export class JobEvents extends EventBus<JobEvent> {}
