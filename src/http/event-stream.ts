/**
 * A server-sent event stream (no proxy buffering, a comment every 15 s to keep it open) that
 * unsubscribes at once when the client goes away or the source closes. Used by the scan stream
 * (JSON for the API, HTML for the web interface's admin pages) and the Komga event stream.
 */
export const KEEP_ALIVE_MS = 15_000;

/**
 * One SSE message; every line of `data` gets its own `data:` field, as the format requires.
 * Without `id`, the client's last event id stays the one it had.
 */
export function sseMessage(id: number | undefined, name: string, data: string): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${name}\n${data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`;
}

/** The first message of a stream that follows scans: reconnect after 5 s. */
export const SCAN_STREAM_START = "retry: 5000\n: connected\n\n";

/** Hooks the stream to a source: `send` writes raw SSE text, `close` ends the stream; returns the unsubscribe. */
export type EventSource = (send: (text: string) => void, close: () => void) => () => void;

export function eventStreamResponse(request: Request, attach: EventSource, firstMessage: string): Response {
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
      const unsubscribe = attach(send, () => {
        cleanup();
        controller.close();
      });
      const keepAlive = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS);
      cleanup = () => {
        open = false;
        clearInterval(keepAlive);
        unsubscribe();
      };
      request.signal.addEventListener("abort", () => cleanup(), { once: true });
      send(firstMessage);
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
