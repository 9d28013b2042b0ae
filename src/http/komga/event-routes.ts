/**
 * Komga's event stream, GET /sse/v1/events: named events with JSON data and a comment every
 * 15 s. Longbox emits `LibraryChanged {libraryId}` when a scan of the library completes (the
 * catalogue may have changed); Komga clients reload what they show of that library.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { eventStreamResponse } from "../event-stream";
import { komgaAuth } from "./auth";

export function komgaEventRoutes(services: Services) {
  return new Elysia({ name: "komga-event-routes" }).use(komgaAuth(services)).get(
    "/sse/v1/events",
    ({ request }) =>
      eventStreamResponse(
        request,
        (send, close) =>
          services.scanEvents.subscribe((event) => {
            if (event.name !== "scan.completed") return;
            const { libraryId } = event.data as { libraryId: string };
            send(`event: LibraryChanged\ndata: ${JSON.stringify({ libraryId })}\n\n`);
          }, close),
        ": connected\n\n",
      ),
    { komga: true, detail: { summary: "Komga: server-sent events (LibraryChanged after a scan)", tags: ["komga"] } },
  );
}
