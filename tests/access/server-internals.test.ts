/**
 * What non-admins may see and do around scans and the server's files (issue #10, items 7-9):
 * only admins start and cancel scans; scan status, scan events and scan metrics show
 * non-admins a scan's state and nothing library-wide; server paths (a library's `path`, a
 * book's `filePath`) appear in no answer to a non-admin, on REST or OPDS.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, login, PASSWORD } from "../helpers/auth";
import { createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { openEventStream } from "../helpers/sse";

const SCAN_STATE_KEYS = ["completedAt", "libraryId", "mode", "requestedAt", "scanId", "startedAt", "status", "trigger"];

forEachDatabase("server internals are for admins", (server) => {
  let admin: Record<string, string>;
  let reader: Record<string, string>;
  let root: string;
  let libraryId: string;

  beforeAll(async () => {
    const session = await adminSession(server());
    admin = bearer(session.token);
    await createUser(server(), session.token, "reader");
    reader = bearer((await login(server(), "reader")).token);
    root = tempFolder();
    for (let index = 1; index <= 12; index++) await makeCbz(join(root, `Series ${index % 3}`, `Book ${index}.cbz`), { seed: index, pages: 2 });
    libraryId = (await createLibrary(server(), admin, { name: "internals", path: root })).id;
  });

  test("only admins start and cancel scans", async () => {
    for (const path of [`/api/v1/libraries/${libraryId}/scan`, `/api/v1/libraries/${libraryId}/scan?mode=deep`, `/api/v1/libraries/${libraryId}/scan/cancel`]) {
      const refused = await server().json("POST", path, undefined, reader);
      expect({ path, status: refused.status, error: refused.body.error }).toEqual({ path, status: 403, error: "Forbidden" });
    }
    const status = await server().json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, admin);
    expect(status.body.status).toBe("idle");
  });

  test("scan status and scan events: admins see counters, others only the scan's state and no progress", async () => {
    const adminStream = openEventStream(server(), admin);
    const readerStream = openEventStream(server(), reader);
    await Promise.all([adminStream.opened, readerStream.opened]);
    const finished = await scan(server(), admin, libraryId);
    expect(finished).toMatchObject({ status: "completed", filesDiscovered: 12, booksAdded: 12 });
    await Bun.sleep(400);

    const forReader = await server().json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, reader);
    expect(forReader.status).toBe(200);
    expect(Object.keys(forReader.body).sort()).toEqual(SCAN_STATE_KEYS);
    expect(forReader.body).toMatchObject({ scanId: finished.scanId, status: "completed" });

    const adminEvents = adminStream.events.filter((event) => event.data.scanId === finished.scanId);
    expect(adminEvents.at(-1)).toMatchObject({ event: "scan.completed", data: { filesDiscovered: 12, booksAdded: 12 } });
    const readerEvents = readerStream.events.filter((event) => event.data.scanId === finished.scanId);
    expect(readerEvents.map((event) => event.event)).toEqual(["scan.started", "scan.completed"]);
    for (const event of readerEvents) expect(Object.keys(event.data).sort()).toEqual(SCAN_STATE_KEYS);
    adminStream.close();
    readerStream.close();
    await Promise.all([adminStream.done, readerStream.done]);
  });

  test("scan and thumbnail metrics are for admins; the inventory is for everyone", async () => {
    const forAdmin = await server().json("GET", "/api/v1/metrics", undefined, admin);
    expect(forAdmin.body.scans).toMatchObject({ completed: 1 });
    const forReader = await server().json("GET", "/api/v1/metrics", undefined, reader);
    expect(forReader.status).toBe(200);
    expect(forReader.body.scans).toBeUndefined();
    expect(forReader.body.inventory.series).toBe(3);

    const text = async (headers: Record<string, string>) => (await server().fetch("/api/v1/metrics?format=prometheus", { headers })).text();
    const adminText = await text(admin);
    const readerText = await text(reader);
    for (const family of ["longbox_scans", "longbox_scan_last_completed_timestamp_seconds", "longbox_thumbnails_pending", "longbox_thumbnails_made_total"]) {
      expect(adminText).toContain(`# TYPE ${family} `);
      expect(readerText).not.toContain(`# TYPE ${family} `);
    }
    expect(readerText).toContain("# TYPE longbox_series gauge");
  });

  test("a library's path and a book's filePath are shown to admins only", async () => {
    const library = await server().json("GET", `/api/v1/libraries/${libraryId}`, undefined, admin);
    expect(library.body.path).toBe(root);
    const books = await server().json("GET", `/api/v1/books?libraryId=${libraryId}&pageSize=500`, undefined, admin);
    const bookId = books.body.data[0].id;
    const seriesId = books.body.data[0].seriesId;
    expect(books.body.data[0].filePath).toStartWith(root);
    expect((await server().json("GET", `/api/v1/books/${bookId}`, undefined, admin)).body.filePath).toStartWith(root);

    const readerAnswers: Record<string, unknown> = {};
    for (const path of ["/api/v1/libraries", `/api/v1/libraries/${libraryId}`, `/api/v1/books?libraryId=${libraryId}&pageSize=500`, `/api/v1/books/${bookId}`, `/api/v1/series/${seriesId}/books`, `/api/v1/books/errors?libraryId=${libraryId}`]) {
      const answer = await server().json("GET", path, undefined, reader);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      readerAnswers[path] = answer.body;
    }
    expect((readerAnswers[`/api/v1/libraries/${libraryId}`] as Record<string, unknown>).path).toBeUndefined();
    expect((readerAnswers[`/api/v1/books/${bookId}`] as Record<string, unknown>).filePath).toBeUndefined();
    expect(JSON.stringify(readerAnswers)).not.toContain(root);

    const readerBasic = basic("reader", PASSWORD);
    for (const path of ["/opds/v1.2/catalog", `/opds/v1.2/libraries/${libraryId}`, `/opds/v1.2/series/${seriesId}`, "/opds/v1.2/recent", `/opds/v2/series/${seriesId}`, "/opds/v2/recent"]) {
      const response = await server().fetch(path, { headers: readerBasic });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(await response.text()).not.toContain(root);
    }
  });
});
