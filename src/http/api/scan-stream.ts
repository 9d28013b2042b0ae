/**
 * GET /api/v1/scans/stream: server-sent events of scan progress (contract: named events,
 * increasing ids, the ScanStatus as data, a keep-alive comment every 15 s, no proxy buffering).
 * A client that goes away is unsubscribed at once. Callers who may not see the server's
 * internals get the lifecycle events with the scan's state only (no counters, no failure
 * reason) and no progress events, which would tell them nothing more.
 */
import { Elysia } from "elysia";
import type { ScanEvent } from "../../events/scan-events";
import { toScanStateDto, type ScanStatusDto } from "../../library/scans";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { eventStreamResponse, SCAN_STREAM_START, sseMessage } from "../event-stream";
import { documentedAnswers, mediaAnswer } from "./schemas";

export { KEEP_ALIVE_MS } from "../event-stream";

export function scanStreamRoutes(services: Services) {
  const events = services.scanEvents;
  return new Elysia({ name: "scan-stream-routes" }).use(authPlugin(services)).get(
    "/api/v1/scans/stream",
    ({ caller, request }) => {
      const seesDetails = services.access.seesServerInternals(caller.user);
      return eventStreamResponse(
        request,
        (send, close) =>
          events.subscribe((event: ScanEvent<ScanStatusDto>) => {
            if (seesDetails) send(sseMessage(event.id, event.name, JSON.stringify(event.data)));
            else if (event.name !== "scan.progress") send(sseMessage(event.id, event.name, JSON.stringify(toScanStateDto(event.data))));
          }, close),
        SCAN_STREAM_START,
      );
    },
    {
      auth: "user",
      detail: {
        summary: "Scan progress as server-sent events",
        tags: ["scans"],
        responses: documentedAnswers({ 200: mediaAnswer("Events whose data is a ScanStatus", { "text/event-stream": { type: "string" } }) }),
      },
    },
  );
}
