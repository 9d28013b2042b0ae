/**
 * A server-sent event response fed by the scan event channel, shared by the API's JSON stream
 * and the web interface's HTML stream: each event is written as `format` renders it (null skips
 * it), a keep-alive comment goes out every 15 s, proxies are told not to buffer, and a client
 * that goes away is unsubscribed at once. The stream ends when the channel closes (shutdown).
 */
import type { ScanEvent, ScanEvents } from "../events/scan-events";

const KEEP_ALIVE_MS = 15_000;

/** One SSE message; every line of `data` gets its own `data:` field, as the format requires. */
export function sseMessage(id: number, name: string, data: string): string {
  return `id: ${id}\nevent: ${name}\n${data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`;
}

export function scanEventStream(request: Request, events: ScanEvents, format: (event: ScanEvent) => string | null): Response {
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
        (event: ScanEvent) => {
          const message = format(event);
          if (message !== null) send(message);
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
}
