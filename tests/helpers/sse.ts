/**
 * A real streaming HTTP client for GET /api/v1/scans/stream (or another event stream: the web
 * interface's /admin/scans/events): collects named events and comments until closed.
 */
import type { TestServer } from "./server";

export interface SseEvent {
  /** NaN for an event sent without an id. */
  id: number;
  event: string;
  /** Parsed JSON; the text itself when it is not JSON (an HTML fragment). */
  data: any;
}

/**
 * A real streaming HTTP client for the event stream at `path`; collects events until closed.
 * `opened` resolves once the server has answered (the stream is subscribed); closing before
 * that, even before the connection is made, ends `done` quietly like closing after.
 */
export function openEventStream(server: TestServer, headers: Record<string, string>, path = "/api/v1/scans/stream") {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let headersSeen: Headers | undefined;
  let markOpened!: () => void;
  const opened = new Promise<void>((resolve) => (markOpened = resolve));
  const done = (async () => {
    try {
      const response = await fetch(`${server.url}${path}`, {
        headers: { ...headers, accept: "text/event-stream" },
        signal: controller.signal,
      });
      headersSeen = response.headers;
      markOpened();
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const fields: Record<string, string> = {};
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(":");
              const [name, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, "")];
              if (name === "data") data.push(value);
              else fields[name] = value;
            }
          }
          if (fields.event) events.push({ id: Number(fields.id), event: fields.event, data: parseData(data) });
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return { events, comments, headers: () => headersSeen, opened, close: () => controller.abort(), done };
}

/** An event's `data:` lines: JSON, or the text itself (an HTML fragment); null without any. */
function parseData(lines: string[]): unknown {
  if (lines.length === 0) return null;
  const text = lines.join("\n");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
