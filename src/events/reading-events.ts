/**
 * Changes of a user's reading progress, from every surface that records it (REST, OPDS page
 * streaming, the Komga API), for event streams that tell that user's other clients.
 */
import { EventBus } from "./event-bus";

export interface ProgressEvent {
  kind: "saved" | "deleted";
  userId: string;
  bookId: string;
  seriesId: string;
}

export class ReadingEvents extends EventBus<ProgressEvent> {}
