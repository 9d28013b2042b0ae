/**
 * Symbolic links never lead out of a library (issue #10, item 1) and one unreadable folder never
 * fails a scan (item 11): links to files and folders outside the root are not followed but
 * counted and logged; folders that cannot be opened or read are skipped and counted; a file that
 * never became a readable book is not served; and serving re-checks the link at request time.
 * Unreadable folders are real: /proc/1/fdinfo and /proc/1/map_files bind-mounted into the
 * library (they refuse even root in this container), so the test needs root.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { bookByFile, booksOf, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const mounts: string[] = [];

function bindMount(source: string, target: string) {
  mkdirSync(target, { recursive: true });
  const result = Bun.spawnSync(["mount", "--bind", source, target]);
  if (result.exitCode !== 0) throw new Error(`mount --bind ${source} failed (the test needs root): ${result.stderr}`);
  mounts.push(target);
}

afterAll(() => {
  for (const target of mounts.reverse()) Bun.spawnSync(["umount", target]);
});

forEachDatabase("path confinement", (server) => {
  let admin: Record<string, string>;
  let root: string;
  let outside: string;
  let libraryId: string;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    root = tempFolder();
    outside = tempFolder("longbox-outside-");
    await makeCbz(join(root, "Saga", "Saga 001.cbz"), { seed: 1 });
    await makeCbz(join(root, "Saga", "Saga 002.cbz"), { seed: 2 });
    writeFileSync(join(root, "Saga", "broken.cbz"), "this is not a zip archive at all");
    await makeCbz(join(outside, "secret.cbz"), { seed: 3 });
    await makeCbz(join(outside, "Folder", "hidden.cbz"), { seed: 4 });
    symlinkSync(join(outside, "secret.cbz"), join(root, "Saga", "leak.cbz"));
    symlinkSync("/etc/shadow", join(root, "shadow.cbz"));
    symlinkSync(join(outside, "Folder"), join(root, "Linked"));
    symlinkSync("/proc/1/fdinfo", join(root, "proc-link"));
    // A link that stays inside is followed as before.
    symlinkSync(join(root, "Saga", "Saga 001.cbz"), join(root, "Favourite.cbz"));
    bindMount("/proc/1/fdinfo", join(root, "Cannot Open"));
    bindMount("/proc/1/map_files", join(root, "Cannot Read"));
    libraryId = (await createLibrary(server(), admin, { path: root })).id;
  });

  test("links out of the library are not followed, unreadable folders are skipped: the scan completes", async () => {
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ status: "completed", booksAdded: 4, linksOutside: 4, pathsSkipped: 2, errors: 1 });
    const books = await booksOf(server(), admin, libraryId);
    expect(books.map((book) => book.filePath.slice(root.length + 1)).sort()).toEqual([
      "Favourite.cbz",
      "Saga/Saga 001.cbz",
      "Saga/Saga 002.cbz",
      "Saga/broken.cbz",
    ]);
    const logs = server().logs.join("\n");
    expect(logs).toContain("outside the library");
    expect(logs).toContain(join(root, "shadow.cbz"));
    expect(logs).toContain(join(root, "Cannot Read"));
  });

  test("a file that never became a readable book is downloaded as it is, but nothing is read from it", async () => {
    const broken = await bookByFile(server(), admin, libraryId, "broken.cbz");
    expect(broken.pageCount).toBe(0);
    // Issue 30: every acquisition link a feed shows answers; the download is the file itself.
    const download = await server().fetch(`/api/v1/books/${broken.id}/file`, { headers: admin });
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array(readFileSync(broken.filePath)));
    const page = await server().fetch(`/api/v1/books/${broken.id}/pages/1`, { headers: admin });
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain("not a zip archive");
  });

  test("a link re-pointed out of the library after the scan is refused at request time", async () => {
    const book = await bookByFile(server(), admin, libraryId, "Saga 002.cbz");
    expect((await server().fetch(`/api/v1/books/${book.id}/file`, { headers: admin })).status).toBe(200);
    expect((await server().fetch(`/api/v1/books/${book.id}/pages/1`, { headers: admin })).status).toBe(200);
    rmSync(book.filePath);
    symlinkSync(join(outside, "secret.cbz"), book.filePath);
    for (const path of [`/api/v1/books/${book.id}/file`, `/api/v1/books/${book.id}/pages/2`, `/api/v1/books/${book.id}/pages/3?width=32`]) {
      const response = await server().fetch(path, { headers: admin });
      expect(response.status).toBe(404);
      expect((await response.json()).message).toContain("outside its library");
    }
    // Re-analysis would catalogue the target: refused too.
    const analyze = await server().json("POST", `/api/v1/books/${book.id}/analyze`, undefined, admin);
    expect(analyze.status).toBe(409);
    expect(analyze.body.message).toContain("outside its library");
  });
});
