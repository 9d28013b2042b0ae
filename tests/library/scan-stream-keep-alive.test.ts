/**
 * The scan event stream's keep-alive (contract, SSE): a `: keep-alive` comment every 15 s, so
 * that proxies and clients do not close a stream that has nothing to say. The interval is not
 * configurable, so the test waits for the first one (~15 s) on every database at once.
 */
import { expect, test } from "bun:test";
import { adminSession, bearer } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { startTestServer } from "../helpers/server";
import { waitFor } from "../helpers/server-processes";
import { openEventStream } from "../helpers/sse";

test("GET /api/v1/scans/stream sends a `: keep-alive` comment 15 s after it opened, and nothing else while idle", async () => {
  const servers = await Promise.all(DATABASE_KINDS.map((kind) => startTestServer(kind)));
  try {
    const streams = await Promise.all(
      servers.map(async (server) => ({ kind: server.kind, stream: openEventStream(server, bearer((await adminSession(server)).token)) })),
    );
    await waitFor(() => streams.every(({ stream }) => stream.comments.includes("connected")), "the streams to open", 10_000);
    const opened = performance.now();
    const arrivals = new Map<string, number>();
    await waitFor(
      () => {
        for (const { kind, stream } of streams) if (stream.comments.includes("keep-alive") && !arrivals.has(kind)) arrivals.set(kind, performance.now() - opened);
        return arrivals.size === streams.length;
      },
      "a keep-alive comment",
      30_000,
    );
    for (const { kind, stream } of streams) {
      // Timers never fire early; a loaded machine may deliver a little late.
      expect(arrivals.get(kind)!).toBeGreaterThanOrEqual(14_500);
      expect(arrivals.get(kind)!).toBeLessThan(20_000);
      expect(stream.comments).toEqual(["connected", "keep-alive"]);
      expect(stream.events).toEqual([]);
      stream.close();
      await stream.done;
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}, 60_000);
