/**
 * A server killed with SIGKILL in the middle of a scan: at the next start the interrupted
 * scan is marked failed, the catalogue holds only whole books (pages stored with each book),
 * and the next scan completes the library.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PASSWORD } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { makeCbz, tempFolder } from "../helpers/library";
import { processClient } from "../helpers/server-processes";
import { queryDatabase } from "../helpers/sql";

const BOOKS = 400;

for (const kind of DATABASE_KINDS) {
  describe(`kill -9 during a scan [${kind}]`, () => {
    let instances: Instances;
    let libraryRoot: string;
    /** A `longbox serve` child process and a tiny HTTP client for it. */
    const startProcess = async () => {
      const { url, child } = await instances.start();
      return { child, call: processClient(url) };
    };

    beforeAll(async () => {
      // On PostgreSQL a restarted instance fails only scans whose lease expired (another live
      // instance may be running them): a short lease, waited out before the restart.
      instances = await instancesOnOneDatabase(kind, { scanner: { concurrency: 1, job_lease_seconds: 1 } });
      libraryRoot = tempFolder();
      for (let index = 1; index <= BOOKS; index++) {
        await makeCbz(join(libraryRoot, `Series ${index % 20}`, `Issue ${index}.cbz`), { seed: index + 10_000, pages: 3 });
      }
    });
    afterAll(async () => instances.stop());

    test("the interrupted scan is failed at restart, no half books, the next scan completes", async () => {
      const first = await startProcess();
      await first.call("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD });
      const { body: session } = await first.call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
      const token = session.token as string;
      const { body: library } = await first.call("POST", "/api/v1/libraries", token, { name: "crash", path: libraryRoot });
      const { body: started } = await first.call("POST", `/api/v1/libraries/${library.id}/scan`, token);

      let catalogued = 0;
      for (let polls = 0; polls < 2000 && catalogued < 20; polls++) {
        catalogued = (await first.call("GET", `/api/v1/books?libraryId=${library.id}&pageSize=1`, token)).body.total;
        await Bun.sleep(5);
      }
      expect(catalogued).toBeGreaterThan(0);
      first.child.kill("SIGKILL");
      await first.child.exited;
      await Bun.sleep(1100);

      const second = await startProcess();
      try {
        const status = await second.call("GET", `/api/v1/libraries/${library.id}/scan-status`, token);
        expect(status.body).toMatchObject({ scanId: started.scanId, status: "failed" });
        expect(status.body.failureReason).toContain("interrupted");

        const partial = await second.call("GET", `/api/v1/books?libraryId=${library.id}&pageSize=500`, token);
        expect(partial.body.total).toBeLessThan(BOOKS);
        for (const book of partial.body.data) expect(book).toMatchObject({ pageCount: 3, analyzed: true });
        // Whole books only: every catalogued book has exactly its pages stored.
        const halfBooks = await queryDatabase(
          instances.database.target,
          "SELECT b.id FROM books b WHERE b.page_count <> (SELECT COUNT(*) FROM book_pages p WHERE p.book_id = b.id)",
        );
        expect(halfBooks).toEqual([]);

        const { body: next } = await second.call("POST", `/api/v1/libraries/${library.id}/scan`, token);
        let final = next;
        for (let polls = 0; polls < 3000 && !["completed", "failed"].includes(final.status); polls++) {
          await Bun.sleep(20);
          final = (await second.call("GET", `/api/v1/libraries/${library.id}/scan-status`, token)).body;
        }
        expect(final).toMatchObject({ status: "completed", booksAdded: BOOKS - partial.body.total, booksDeleted: 0 });
        const complete = await second.call("GET", `/api/v1/books?libraryId=${library.id}&pageSize=1`, token);
        expect(complete.body.total).toBe(BOOKS);
      } finally {
        second.child.kill("SIGTERM");
        await second.child.exited;
      }
    }, 120_000);

    test("a library with scan_on_start is scanned when the service starts", async () => {
      const first = await startProcess();
      const { body: session } = await first.call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
      const root = tempFolder();
      await makeCbz(join(root, "Boot", "Boot 1.cbz"), { seed: 31_337 });
      const { body: library } = await first.call("POST", "/api/v1/libraries", session.token, {
        name: "boot",
        path: root,
        scanning_config: { scan_on_start: true },
      });
      expect(library.scanningConfig.scanOnStart).toBe(true);
      first.child.kill("SIGTERM");
      expect(await first.child.exited).toBe(0);

      const second = await startProcess();
      try {
        let status: any = {};
        for (let polls = 0; polls < 500 && status.status !== "completed"; polls++) {
          status = (await second.call("GET", `/api/v1/libraries/${library.id}/scan-status`, session.token)).body;
          await Bun.sleep(20);
        }
        expect(status).toMatchObject({ status: "completed", trigger: "startup", booksAdded: 1 });
      } finally {
        second.child.kill("SIGTERM");
        await second.child.exited;
      }
    }, 60_000);
  });
}
