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

export const KEEP_ALIVE_MS = 15_000;

export function scanStreamRoutes(services: Services) {
  const events = services.scanEvents;
  return new Elysia({ name: "scan-stream-routes" }).use(authPlugin(services)).get(
    "/api/v1/scans/stream",
    ({ caller, request }) => {
      const seesDetails = services.access.seesServerInternals(caller.user);
      const encoder = new TextEncoder();
      let cleanup = () => undefined as void;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          let open = true;
          const send = (text: string) => {
            if (!open) return;
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              cleanup();
            }
          };
          const unsubscribe = events.subscribe(
            (event: ScanEvent<ScanStatusDto>) => {
              if (seesDetails) send(`id: ${event.id}\nevent: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`);
              else if (event.name !== "scan.progress") {
                send(`id: ${event.id}\nevent: ${event.name}\ndata: ${JSON.stringify(toScanStateDto(event.data))}\n\n`);
              }
            },
            () => {
              cleanup();
              controller.close();
            },
          );
          const keepAlive = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS);
          cleanup = () => {
            open = false;
            clearInterval(keepAlive);
            unsubscribe();
          };
          request.signal.addEventListener("abort", () => cleanup(), { once: true });
          send("retry: 5000\n: connected\n\n");
        },
        cancel() {
          cleanup();
        },
      });
      return new Response(body, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
          "x-accel-buffering": "no",
        },
      });
    },
    { auth: "user", detail: { summary: "Scan progress as server-sent events", tags: ["scans"] } },
  );
}
