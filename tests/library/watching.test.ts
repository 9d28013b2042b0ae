/**
 * Libraries that follow the disk: files added, changed, renamed, moved between folders and
 * deleted under a watched library are catalogued by targeted scans (trigger `watch`) within
 * the quiet window plus a margin, keeping book ids and reading progress across moves; a copy in
 * progress is not catalogued half-written; changes during a full scan wait for it (one watch scan,
 * no storm); a library folder that goes away is logged, scanned and then polled; polling works
 * with events off; touching one book of a large library rescans only its folder.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, createLibrary, libraryRoot, makeCbz, scan } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const QUIET_SECONDS = 0.5;
/** The quiet window, the settle look, a scan: well under this on a loaded machine. */
const FOLLOW_MS = 15_000;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = FOLLOW_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await Bun.sleep(100);
  }
  throw new Error(`${what}: not seen within ${timeoutMs} ms`);
}

forEachDatabase(
  "watching",
  (server) => {
    let admin: Record<string, string>;
    beforeAll(async () => {
      admin = bearer((await adminSession(server())).token);
    });

    const bookNamed = async (libraryId: string, name: string, deleted = false) =>
      (await booksOf(server(), admin, libraryId, deleted)).find((book) => book.filePath.endsWith(`/${name}`));
    const status = async (libraryId: string) => (await server().json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, admin)).body;
    /** A library over a folder filled by `fill` first, scanned once by hand; then watching takes over. */
    const watchedLibrary = async (name: string, scanningConfig: Record<string, unknown>, fill: (root: string) => Promise<void>) => {
      const root = libraryRoot(server(), name);
      mkdirSync(root, { recursive: true });
      await fill(root);
      const id = (await createLibrary(server(), admin, { name, path: root, scanningConfig })).id;
      expect((await scan(server(), admin, id, undefined, 240_000)).status).toBe("completed");
      return { root, id };
    };
    /** The next completed watch scan after `previousScanId`. */
    const nextWatchScan = (libraryId: string, previousScanId: string) =>
      until("a completed watch scan", async () => {
        const current = await status(libraryId);
        return current.scanId !== previousScanId && current.trigger === "watch" && current.status === "completed" && current;
      });

    describe("events", () => {
      let library: { root: string; id: string };
      beforeAll(async () => {
        library = await watchedLibrary("Watched", {}, async (root) => {
          await makeCbz(join(root, "Alpha", "Alpha 001.cbz"), { pages: 3, seed: 1 });
          await makeCbz(join(root, "Beta", "Beta 001.cbz"), { pages: 2, seed: 2 });
        });
      });

      test("a new file is catalogued by a watch scan of its folder, visible in the scan status", async () => {
        const before = (await status(library.id)).scanId;
        await makeCbz(join(library.root, "Alpha", "Alpha 002.cbz"), { pages: 4, seed: 3 });
        const latest = await nextWatchScan(library.id, before);
        // Targeted: only the Alpha folder was walked.
        expect(latest).toMatchObject({ filesDiscovered: 2, booksAdded: 1 });
        expect((await bookNamed(library.id, "Alpha 002.cbz"))?.pageCount).toBe(4);
      });

      test("a changed file is re-analysed in place (same id)", async () => {
        const before = (await bookNamed(library.id, "Beta 001.cbz"))!;
        await makeCbz(join(library.root, "Beta", "Beta 001.cbz"), { pages: 5, seed: 4 });
        const after = await until("the new page count", async () => {
          const book = await bookNamed(library.id, "Beta 001.cbz");
          return book?.pageCount === 5 && book;
        });
        expect(after.id).toBe(before.id);
      });

      test("renames and moves between folders keep the book's id and progress", async () => {
        const book = (await bookNamed(library.id, "Alpha 001.cbz"))!;
        const progress = await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 2 }, admin);
        expect(progress.status).toBe(200);

        renameSync(join(library.root, "Alpha", "Alpha 001.cbz"), join(library.root, "Alpha", "Alpha 001 (renamed).cbz"));
        const renamed = await until("the renamed book", () => bookNamed(library.id, "Alpha 001 (renamed).cbz"));
        expect(renamed.id).toBe(book.id);

        mkdirSync(join(library.root, "Gamma"));
        renameSync(join(library.root, "Alpha", "Alpha 001 (renamed).cbz"), join(library.root, "Gamma", "Alpha 001.cbz"));
        const moved = await until("the moved book", () => bookNamed(library.id, "Gamma/Alpha 001.cbz"));
        expect(moved.id).toBe(book.id);
        expect(await bookNamed(library.id, "Alpha 001 (renamed).cbz")).toBeUndefined();
        const kept = await server().json("GET", `/api/v1/books/${book.id}/progress`, undefined, admin);
        expect(kept.body.page).toBe(2);
      });

      test("a deleted file and a deleted folder soft-delete their books", async () => {
        rmSync(join(library.root, "Alpha", "Alpha 002.cbz"));
        await until("the deleted book", () => bookNamed(library.id, "Alpha 002.cbz", true));
        rmSync(join(library.root, "Beta"), { recursive: true });
        await until("the deleted folder's book", () => bookNamed(library.id, "Beta 001.cbz", true));
        expect(await bookNamed(library.id, "Beta 001.cbz")).toBeUndefined();
        // A whole folder removed by hand is not a suspicious scan.
        expect((await status(library.id)).removalsHeld).toBe(0);
      });

      test("a copy in progress is not catalogued until its size and time settle", async () => {
        const source = join(server().dir, "whole.cbz");
        await makeCbz(source, { pages: 6, seed: 9 });
        const bytes = await Bun.file(source).bytes();
        const target = join(library.root, "Delta", "Delta 001.cbz");
        mkdirSync(join(library.root, "Delta"));
        const chunks = 8;
        const chunk = Math.ceil(bytes.length / chunks);
        writeFileSync(target, bytes.subarray(0, chunk));
        for (let index = 1; index < chunks; index++) {
          // Some pauses outlast the quiet window: only the settle look (half the window) holds the file.
          await Bun.sleep(index % 3 === 0 ? QUIET_SECONDS * 1000 * 1.2 : 150);
          appendFileSync(target, bytes.subarray(index * chunk, (index + 1) * chunk));
          expect(await bookNamed(library.id, "Delta 001.cbz")).toBeUndefined();
        }
        const book = await until("the copied book", () => bookNamed(library.id, "Delta 001.cbz"));
        const settled = await until("its final analysis", async () => {
          const current = await bookNamed(library.id, "Delta 001.cbz");
          return current?.pageCount === 6 && current;
        });
        expect(settled.id).toBe(book.id);
        expect(settled.analysisError).toBeNull();
        // No scan catalogued the half-written file: no error was ever recorded for it.
        const errors = await server().json("GET", "/api/v1/books/errors", undefined, admin);
        expect(JSON.stringify(errors.body)).not.toContain("Delta 001.cbz");
      });
    });

    test("changes made while a full scan runs wait for it, then one watch scan takes them all", async () => {
      const library = await watchedLibrary("Busy", {}, async (root) => {
        for (let index = 0; index < 200; index++) {
          await makeCbz(join(root, `Series ${index % 10}`, `Book ${index}.cbz`), { pages: 1, seed: 500 + index });
        }
      });
      const watchScansStarted = () =>
        server().logs.filter((line) => line.includes("scan started") && line.includes(library.id) && line.includes("watch")).length;
      const deep = await server().json("POST", `/api/v1/libraries/${library.id}/scan?mode=deep`, undefined, admin);
      expect(deep.status).toBe(202);
      for (let index = 0; index < 5; index++) {
        await makeCbz(join(library.root, `New ${index}`, "New 001.cbz"), { pages: 2, seed: 900 + index });
        await Bun.sleep(100);
      }
      await nextWatchScan(library.id, deep.body.scanId);
      await Bun.sleep(QUIET_SECONDS * 1000 * 3);
      expect(watchScansStarted()).toBe(1);
      for (let index = 0; index < 5; index++) expect(await bookNamed(library.id, `New ${index}/New 001.cbz`)).toBeDefined();
    }, 120_000);

    test("when events cannot be had, the log says so, a normal scan is asked for and polling takes over", async () => {
      // A deep default: the catch-up scan must still be the normal scan it is documented as.
      const library = await watchedLibrary("Lost", { watch: false, defaultMode: "deep" }, async (root) => {
        await makeCbz(join(root, "Series", "Lost 001.cbz"), { pages: 1, seed: 31 });
      });
      const before = (await status(library.id)).scanId;
      const updated = await server().json("PATCH", `/api/v1/libraries/${library.id}`, { scanningConfig: { watch: true, pollSeconds: 1 } }, admin);
      expect(updated.status).toBe(200);
      await Bun.sleep(200);
      rmSync(library.root, { recursive: true }); // an unmounted share: the watch ends
      await until("the log line", async () => server().logs.some((line) => line.includes("file-system events lost") && line.includes(library.id)));
      const catchUp = await until("the catch-up scan", async () => {
        const current = await status(library.id);
        return current.scanId !== before && current.trigger === "watch" && ["completed", "failed"].includes(current.status) && current;
      });
      expect(catchUp.failureReason).toContain("cannot be read");
      expect(catchUp.mode).toBe("normal");
      // The share comes back: polling sees the new book.
      await makeCbz(join(library.root, "Series", "Lost 002.cbz"), { pages: 2, seed: 32 });
      expect((await until("the polled book", () => bookNamed(library.id, "Lost 002.cbz"))).pageCount).toBe(2);
    });

    test("polling finds changes with events turned off", async () => {
      const library = await watchedLibrary("Polled", { watch: false, pollSeconds: 1 }, async (root) => {
        await makeCbz(join(root, "Series", "Polled 001.cbz"), { pages: 2, seed: 21 });
      });
      await makeCbz(join(library.root, "Series", "Polled 002.cbz"), { pages: 3, seed: 22 });
      const book = await until("the polled book", () => bookNamed(library.id, "Polled 002.cbz"));
      expect(book.pageCount).toBe(3);
      expect((await status(library.id)).trigger).toBe("watch");
    });

    test("touching one book of 1,000 rescans its folder only", async () => {
      const folders = 50;
      const perFolder = 20;
      const library = await watchedLibrary("Large", { watch: false }, async (root) => {
        for (let folder = 0; folder < folders; folder++) {
          for (let index = 0; index < perFolder; index++) {
            await makeCbz(join(root, `Series ${folder}`, `Book ${index}.cbz`), { pages: 1, seed: folder * perFolder + index + 100 });
          }
        }
      });
      const first = await status(library.id);
      expect(first.booksAdded).toBe(folders * perFolder);
      // Watching on from now (a change of the library's settings applies at once).
      const updated = await server().json("PATCH", `/api/v1/libraries/${library.id}`, { scanningConfig: { watch: true } }, admin);
      expect(updated.status).toBe(200);
      await Bun.sleep(300);
      const touched = join(library.root, "Series 7", "Book 3.cbz");
      const earlier = new Date(Date.now() - 60_000);
      utimesSync(touched, earlier, earlier);
      const done = await nextWatchScan(library.id, first.scanId);
      expect(done).toMatchObject({ filesDiscovered: perFolder, booksAdded: 0, booksUpdated: 0, booksDeleted: 0 });
    }, 300_000);
  },
  { scanner: { watch_enabled: true, watch_quiet_seconds: QUIET_SECONDS } },
);

