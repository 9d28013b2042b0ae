/**
 * The size of the thumbnail queue (all libraries, every process), as a process that makes
 * thumbnails counts it: published when its count changes (at most once a poll), for the admin
 * libraries page, whose "thumbnails still being made" line follows it down to zero.
 */
import { EventBus } from "./event-bus";

export interface ThumbnailCount {
  /** Thumbnails waiting or being made. */
  pending: number;
}

export class ThumbnailEvents extends EventBus<ThumbnailCount> {}
