/**
 * Scan control over HTTP: every status transition (idle -> pending/running -> completed,
 * cancelled), one scan per library at a time (409), cancel, and the progress events on
 * GET /api/v1/scans/stream read by real HTTP clients.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { createLibrary, makeCbz, scan, tempFolder, waitForScan } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { openEventStream } from "../helpers/sse";

const BOOKS = 150;

forEachDatabase(
  "scan control and events",
  (server) => {
    let admin: Record<string, string>;
    let libraryId: string;

    beforeAll(async () => {
      admin = bearer((await adminSession(server())).token);
      const root = tempFolder();
      for (let index = 1; index <= BOOKS; index++) {
        await makeCbz(join(root, `Series ${index % 10}`, `Book ${String(index).padStart(3, "0")}.cbz`), { seed: index, pages: 2 });
      }
      libraryId = (await createLibrary(server(), admin, { name: "control", path: root })).id;
    });

    test("a library never scanned is idle", async () => {
      const { status, body } = await server().json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, admin);
      expect(status).toBe(200);
      expect(body).toMatchObject({ scanId: null, libraryId, status: "idle", filesDiscovered: 0 });
    });

    test("a scan goes pending -> running -> completed, with events for two clients at once", async () => {
      const first = openEventStream(server(), admin);
      const second = openEventStream(server(), admin);
      await Promise.all([first.opened, second.opened]);
      expect(first.headers()?.get("content-type")).toStartWith("text/event-stream");
      expect(first.headers()?.get("x-accel-buffering")).toBe("no");

      const started = await server().json("POST", `/api/v1/libraries/${libraryId}/scan`, undefined, admin);
      expect(started.status).toBe(202);
      expect(["pending", "running"]).toContain(started.body.status);
      expect(started.body.mode).toBe("normal");

      const again = await server().json("POST", `/api/v1/libraries/${libraryId}/scan`, undefined, admin);
      expect(again.status).toBe(409);

      const seen = new Set<string>();
      for (let polls = 0; polls < 2000; polls++) {
        const { body } = await server().json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, admin);
        seen.add(body.status);
        if (body.status === "completed") break;
        await Bun.sleep(5);
      }
      expect(seen.has("running")).toBe(true);
      expect(seen.has("completed")).toBe(true);
      const finished = await waitForScan(server(), admin, libraryId, started.body.scanId);
      expect(finished).toMatchObject({ filesDiscovered: BOOKS, filesProcessed: BOOKS, booksAdded: BOOKS, seriesCreated: 10 });
      expect(Date.parse(finished.completedAt)).toBeGreaterThanOrEqual(Date.parse(finished.startedAt));

      await Bun.sleep(100);
      for (const client of [first, second]) {
        const names = client.events.filter((event) => event.data.scanId === started.body.scanId).map((event) => event.event);
        expect(names[0]).toBe("scan.started");
        expect(names.at(-1)).toBe("scan.completed");
        expect(names).toContain("scan.progress");
        const ids = client.events.map((event) => event.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        const last = client.events.at(-1)!.data;
        expect(last).toMatchObject({ status: "completed", booksAdded: BOOKS, filesProcessed: BOOKS });
        const progress = client.events.filter((event) => event.event === "scan.progress");
        // at most ~4 progress events a second: far fewer than one per file
        expect(progress.length).toBeLessThan(BOOKS);
      }
      first.close();
      second.close();
      await Promise.all([first.done, second.done]);
    });

    test("a client that goes away does not disturb the next scan", async () => {
      const leaving = openEventStream(server(), admin);
      await leaving.opened;
      leaving.close();
      await leaving.done;
      const staying = openEventStream(server(), admin);
      await staying.opened;
      const status = await scan(server(), admin, libraryId, "deep");
      expect(status.status).toBe("completed");
      await Bun.sleep(100);
      expect(staying.events.some((event) => event.event === "scan.completed" && event.data.scanId === status.scanId)).toBe(true);
      expect(leaving.events.some((event) => event.data.scanId === status.scanId)).toBe(false);
      staying.close();
      await staying.done;
    });

    test("a running scan can be cancelled: status cancelled, nothing deleted, the next scan completes", async () => {
      const stream = openEventStream(server(), admin);
      await stream.opened;
      const started = await server().json("POST", `/api/v1/libraries/${libraryId}/scan?mode=deep`, undefined, admin);
      expect(started.status).toBe(202);
      for (let polls = 0; polls < 1000; polls++) {
        const { body } = await server().json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, admin);
        if (body.status === "running") break;
        await Bun.sleep(2);
      }
      const cancel = await server().json("POST", `/api/v1/libraries/${libraryId}/scan/cancel`, undefined, admin);
      expect(cancel.status).toBe(202);
      const final = await waitForScan(server(), admin, libraryId, started.body.scanId);
      expect(final.status).toBe("cancelled");
      expect(final.booksDeleted).toBe(0);
      expect(final.filesProcessed).toBeLessThan(BOOKS);
      await Bun.sleep(50);
      expect(stream.events.some((event) => event.event === "scan.cancelled" && event.data.scanId === started.body.scanId)).toBe(true);
      stream.close();
      await stream.done;

      const nothing = await server().json("POST", `/api/v1/libraries/${libraryId}/scan/cancel`, undefined, admin);
      expect(nothing.status).toBe(409);
      const after = await scan(server(), admin, libraryId);
      expect(after).toMatchObject({ status: "completed", booksDeleted: 0, booksAdded: 0 });
      const { body } = await server().json("GET", `/api/v1/books?libraryId=${libraryId}&pageSize=1`, undefined, admin);
      expect(body.total).toBe(BOOKS);
    });

    test("scans queue one at a time: a second library waits pending, and a pending scan can be cancelled", async () => {
      const otherRoot = tempFolder();
      await makeCbz(join(otherRoot, "Solo", "Solo 1.cbz"), { seed: 5000 });
      const other = await createLibrary(server(), admin, { name: "queued", path: otherRoot });
      const busy = await server().json("POST", `/api/v1/libraries/${libraryId}/scan?mode=deep`, undefined, admin);
      const queued = await server().json("POST", `/api/v1/libraries/${other.id}/scan`, undefined, admin);
      expect(queued.status).toBe(202);
      expect(queued.body.status).toBe("pending");
      const cancelled = await server().json("POST", `/api/v1/libraries/${other.id}/scan/cancel`, undefined, admin);
      expect(cancelled.status).toBe(202);
      const status = await server().json("GET", `/api/v1/libraries/${other.id}/scan-status`, undefined, admin);
      expect(status.body).toMatchObject({ scanId: queued.body.scanId, status: "cancelled", filesProcessed: 0 });
      await waitForScan(server(), admin, libraryId, busy.body.scanId);
      const later = await scan(server(), admin, other.id);
      expect(later).toMatchObject({ status: "completed", booksAdded: 1 });
    });

    test("a scan asked for without a mode runs in the library's default_mode; an unknown mode is 400", async () => {
      const books = async (name: string) => {
        const root = tempFolder();
        for (const seed of [1, 2]) await makeCbz(join(root, name, `${name} ${seed}.cbz`), { seed: 7000 + seed + (name === "Deep" ? 10 : 0) });
        return root;
      };
      const deep = await createLibrary(server(), admin, { name: "deep by default", path: await books("Deep"), scanning_config: { default_mode: "deep" } });
      const normal = await createLibrary(server(), admin, { name: "normal by default", path: await books("Normal") });
      expect(await scan(server(), admin, deep.id)).toMatchObject({ status: "completed", mode: "deep", booksAdded: 2 });
      expect(await scan(server(), admin, normal.id)).toMatchObject({ status: "completed", mode: "normal", booksAdded: 2 });

      // Nothing changed on disk: a normal scan opens no file, a deep one analyses every book again
      // and finds no record changed (tests/library/book-states.test.ts shows it reads them).
      expect(await scan(server(), admin, deep.id)).toMatchObject({ status: "completed", mode: "deep", booksUpdated: 0, booksAdded: 0 });
      expect(await scan(server(), admin, normal.id)).toMatchObject({ status: "completed", mode: "normal", booksUpdated: 0, booksAdded: 0 });

      // The default is read at each request: changed back to normal, the next scan is normal.
      const changed = await server().json("PATCH", `/api/v1/libraries/${deep.id}`, { scanningConfig: { defaultMode: "normal" } }, admin);
      expect(changed.status).toBe(200);
      expect(await scan(server(), admin, deep.id)).toMatchObject({ status: "completed", mode: "normal", booksUpdated: 0 });
      // An explicit mode still wins over the default.
      expect(await scan(server(), admin, normal.id, "deep")).toMatchObject({ status: "completed", mode: "deep", booksUpdated: 0 });

      for (const mode of ["fast", "DEEP", ""]) {
        const refused = await server().json("POST", `/api/v1/libraries/${normal.id}/scan?mode=${mode}`, undefined, admin);
        expect({ mode, status: refused.status }).toEqual({ mode, status: 400 });
        expect(refused.body).toEqual({ error: "BadRequest", message: expect.stringContaining("mode"), details: { fields: { mode: expect.any(String) } } });
      }
      const status = await server().json("GET", `/api/v1/libraries/${normal.id}/scan-status`, undefined, admin);
      expect(status.body).toMatchObject({ mode: "deep", status: "completed" });
    });

    test("the stream needs credentials", async () => {
      const response = await server().fetch("/api/v1/scans/stream", { headers: { accept: "text/event-stream" } });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBeNull();
    });
  },
  { scanner: { concurrency: 1 } },
);
