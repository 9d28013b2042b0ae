/**
 * GET /admin/scans/events, the stream of the admin libraries page (HTML fragments for htmx's SSE
 * extension), read by a real HTTP client on each database: it opens with the thumbnail queue as
 * it is, carries a library's scan to its end (and the notice following a first scan), and then
 * the count of thumbnails still being made (event `thumbnails`), down to none.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, bearer } from "../helpers/auth";
import { comicsFolder, createLibrary, scan } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { ADMIN_SCAN_STREAM, waitFor } from "../helpers/server-processes";
import { openEventStream, type SseEvent } from "../helpers/sse";

const BOOKS = 60;

/** The count of thumbnails still being made an event's fragment shows; 0 when it shows none. */
function thumbnailsShown(event: SseEvent): number {
  return Number(/(\d+) thumbnails still being made\./.exec(event.data)?.[1] ?? 0);
}

forEachDatabase("admin scan events", (server) => {
  let admin: Record<string, string>;
  let libraryId: string;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    const root = await comicsFolder(BOOKS, { pages: 2, seed: 90_000, series: 3 });
    libraryId = (await createLibrary(server(), admin, { name: "thumbnail countdown", path: root })).id;
  });

  test("after a scan, the stream counts the thumbnails still being made down to none", async () => {
    const stream = openEventStream(server(), admin, ADMIN_SCAN_STREAM);
    await waitFor(() => stream.events.length > 0, "the stream's first event");
    expect(stream.headers()?.get("content-type")).toStartWith("text/event-stream");
    // The queue as it is when the stream opens: empty, so the line is empty.
    expect(stream.events[0]).toMatchObject({ event: "thumbnails", data: "" });

    const scanned = await scan(server(), admin, libraryId);
    expect(scanned).toMatchObject({ status: "completed", booksAdded: BOOKS });
    const ended = () => stream.events.findIndex((event) => event.event === `scan-${libraryId}` && event.data.includes('data-status="completed"'));
    await waitFor(() => ended() >= 0 && stream.events.at(-1)?.event === "thumbnails" && stream.events.at(-1)?.data === "", "the thumbnails to be counted down to none");
    expect(await server().server.services.thumbnails.countPending()).toBe(0);

    // The ended scan's fragment shows the thumbnails it left to make; each later count is a
    // `thumbnails` event (no id: the scan events' ids go on), counting down, to an empty line.
    // Beside each scan event, the notice that follows a first scan says the same (issue 32).
    const notices = stream.events.filter((event) => event.event === `scan-notice-${libraryId}`);
    expect(notices.at(-1)?.data).toContain(`The first scan is complete: ${BOOKS} books added.`);
    const [end, ...later] = stream.events.slice(ended()).filter((event) => !event.event.startsWith("scan-notice-"));
    const countdown = [end!, ...later].map(thumbnailsShown);
    expect(countdown[0]).toBeGreaterThan(0);
    expect(countdown[0]).toBeLessThanOrEqual(BOOKS);
    expect(countdown).toEqual([...countdown].sort((a, b) => b - a));
    expect(countdown.at(-1)).toBe(0);
    for (const event of later) {
      expect(event.event).toBe("thumbnails");
      expect(event.id).toBeNaN();
      expect(event.data).toMatch(/^(<span class="counts">\d+ thumbnails still being made\.<\/span>)?$/);
    }
    stream.close();
    await stream.done;
  }, 90_000);
});
