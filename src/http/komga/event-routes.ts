/**
 * Komga's event stream, GET /sse/v1/events: named events with JSON data and a comment every
 * 15 s (docs/komga-api.md, "Events"). `LibraryChanged {libraryId}` when a scan of the library
 * completes (the catalogue may have changed: clients reload what they show of it), and the
 * caller's own progress changes as ReadProgress(Series)Changed/Deleted, to that user only.
 */
import { Elysia } from "elysia";
import type { ProgressEvent } from "../../events/reading-events";
import type { Services } from "../../services";
import { eventStreamResponse } from "../event-stream";
import { komgaAuth } from "./auth";

const event = (name: string, data: Record<string, string>) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

function progressEvents({ kind, userId, bookId, seriesId }: ProgressEvent): string {
  const suffix = kind === "saved" ? "Changed" : "Deleted";
  return event(`ReadProgress${suffix}`, { bookId, userId }) + event(`ReadProgressSeries${suffix}`, { seriesId, userId });
}

export function komgaEventRoutes(services: Services) {
  const { scanEvents, readingEvents } = services;
  return new Elysia({ name: "komga-event-routes" }).use(komgaAuth(services)).get(
    "/sse/v1/events",
    ({ caller, request }) =>
      eventStreamResponse(
        request,
        (send, close) => {
          const fromScans = scanEvents.subscribe((scan) => {
            if (scan.name === "scan.completed") send(event("LibraryChanged", { libraryId: (scan.data as { libraryId: string }).libraryId }));
          }, close);
          const fromReading = readingEvents.subscribe((change) => {
            if (change.userId === caller.user.id) send(progressEvents(change));
          });
          return () => {
            fromScans();
            fromReading();
          };
        },
        ": connected\n\n",
      ),
    { komga: true, detail: { summary: "Komga: server-sent events (LibraryChanged, the caller's ReadProgress changes)", tags: ["komga"] } },
  );
}
