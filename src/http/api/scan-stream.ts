/**
 * GET /api/v1/scans/stream: server-sent events of scan progress (contract: named events,
 * increasing ids, the ScanStatus as data, a keep-alive comment every 15 s, no proxy buffering).
 * A client that goes away is unsubscribed at once.
 */
import { Elysia } from "elysia";
import type { ScanEvent } from "../../events/scan-events";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { eventStreamResponse } from "../event-stream";

export { KEEP_ALIVE_MS } from "../event-stream";

export function scanStreamRoutes(services: Services) {
  const events = services.scanEvents;
  return new Elysia({ name: "scan-stream-routes" }).use(authPlugin(services)).get(
    "/api/v1/scans/stream",
    ({ request }) =>
      eventStreamResponse(
        request,
        (send, close) =>
          events.subscribe((event: ScanEvent) => send(`id: ${event.id}\nevent: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`), close),
        "retry: 5000\n: connected\n\n",
      ),
    { auth: "user", detail: { summary: "Scan progress as server-sent events", tags: ["scans"] } },
  );
}
