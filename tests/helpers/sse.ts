/** A real streaming HTTP client for GET /api/v1/scans/stream: collects named events and comments until closed. */
import type { TestServer } from "./server";

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** A real streaming HTTP client for the event stream; collects events until closed. */
export function openEventStream(server: TestServer, headers: Record<string, string>) {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let headersSeen: Headers | undefined;
  const done = (async () => {
    const response = await fetch(`${server.url}/api/v1/scans/stream`, {
      headers: { ...headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    headersSeen = response.headers;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(":");
              fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
            }
          }
          if (fields.event) events.push({ id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data ?? "null") });
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return { events, comments, headers: () => headersSeen, close: () => controller.abort(), done };
}
