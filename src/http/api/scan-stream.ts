/**
 * GET /api/v1/scans/stream: server-sent events of scan progress (contract: named events,
 * increasing ids, the ScanStatus as data, a keep-alive comment every 15 s, no proxy buffering).
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { scanEventStream, sseMessage } from "../event-stream";

export function scanStreamRoutes(services: Services) {
  return new Elysia({ name: "scan-stream-routes" }).use(authPlugin(services)).get(
    "/api/v1/scans/stream",
    ({ request }) => scanEventStream(request, services.scanEvents, (event) => sseMessage(event.id, event.name, JSON.stringify(event.data))),
    { auth: "user", detail: { summary: "Scan progress as server-sent events", tags: ["scans"] } },
  );
}
