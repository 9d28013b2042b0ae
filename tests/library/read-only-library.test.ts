/**
 * A library folder is only ever read: in a folder made read-only (chmod a-w), scans (normal and
 * deep), thumbnails, page reads, resized pages, EPUB resources, downloads, progress, metadata edits and uploaded
 * covers all work, and none of them changes anything inside it. The tests run as root, where
 * permission bits stop no write, so the proof is a snapshot of the folder (every entry's type,
 * mode, size, modification and change times, and content hash) taken before and compared after:
 * a file written, renamed, touched or re-permissioned would change it.
 */
import { expect, test } from "bun:test";
import { chmodSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import sharp from "sharp";
import { adminSession, bearer } from "../helpers/auth";
import { sha256 } from "../helpers/digests";
import { booksOf, comicInfo, createLibrary, libraryRoot, makeCbz, placeFixture, scan, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const LAYOUT = {
  "Captain Science/Captain Science 001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Captain Science/Captain Science 002.cbr": "cbr/comicbox/Captain Science #001-cbi.cbr",
  "Documents/komga.pdf": "pdf/komga/komga.pdf",
  "Novels/book.epub": "epub/stump/book.epub",
};

/** Every entry under `root` (itself included) with what a write of any kind would change. */
function snapshot(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const visit = (path: string) => {
    const info = lstatSync(path);
    const hash = info.isFile() ? sha256(readFileSync(path)) : "-";
    entries[relative(root, path) || "."] = [info.mode.toString(8), info.size, info.mtimeMs, info.ctimeMs, hash].join(" ");
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return entries;
}

/** chmod -R: `file` mode for files, `folder` mode for folders. */
function chmodTree(path: string, file: number, folder: number): void {
  const info = lstatSync(path);
  if (info.isDirectory()) {
    for (const name of readdirSync(path)) chmodTree(join(path, name), file, folder);
    chmodSync(path, folder);
  } else chmodSync(path, file);
}

forEachDatabase("a read-only library folder", (server) => {
  test("scans, thumbnails, page reads, downloads, progress, edits and covers write nothing inside it", async () => {
    const session = await adminSession(server());
    const admin = bearer(session.token);
    const root = libraryRoot(server(), "Read only");
    for (const [target, source] of Object.entries(LAYOUT)) placeFixture(source, join(root, target));
    await makeCbz(join(root, "Tagged", "Tagged 1.cbz"), { comicInfo: comicInfo({ Series: "Tagged", Number: 1, Title: "On file" }) });
    chmodTree(root, 0o444, 0o555);
    const before = snapshot(root);
    try {
      const library = await createLibrary(server(), admin, { name: "Read only", path: root });
      await scanToCompletion(server(), session.token, library.id);
      const books = await booksOf(server(), admin, library.id);
      expect(books.map((book) => book.fileFormat).sort()).toEqual(["cbr", "cbz", "cbz", "epub", "pdf"]);
      expect(books.filter((book) => book.pageCount === 0)).toEqual([]);

      for (const book of books) {
        const get = (path: string) => server().fetch(`/api/v1/books/${book.id}${path}`, { headers: admin });
        const reads = ["/file", "/thumbnail", ...(book.fileFormat === "epub" ? ["/manifest"] : ["/pages", "/pages/1", "/pages/1?width=120"])];
        for (const path of reads) {
          const response = await get(path);
          expect({ book: book.filePath, path, status: response.status }).toEqual({ book: book.filePath, path, status: 200 });
          await response.arrayBuffer();
        }
        if (book.fileFormat === "epub") {
          const manifest = await (await get("/manifest")).json();
          for (const link of manifest.readingOrder.slice(0, 2)) {
            const resource = await server().fetch(new URL(link.href, `${server().url}/api/v1/books/${book.id}/manifest`).href, { headers: admin });
            expect({ href: link.href, status: resource.status }).toEqual({ href: link.href, status: 200 });
            await resource.arrayBuffer();
          }
        }
        expect((await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 1, completed: false }, admin)).status).toBe(200);
      }
      const tagged = books.find((book) => book.title === "On file")!;
      const edited = await server().json("PATCH", `/api/v1/books/${tagged.id}`, { title: "Edited in Longbox", number: 7 }, admin);
      expect(edited.status).toBe(200);
      expect((await server().json("PATCH", `/api/v1/series/${tagged.seriesId}`, { summary: "Kept in the database" }, admin)).status).toBe(200);
      const cover = new FormData();
      const png = await sharp({ create: { width: 16, height: 24, channels: 3, background: "blue" } }).png().toBuffer();
      cover.append("file", new Blob([png], { type: "image/png" }), "cover.png");
      expect((await server().fetch(`/api/v1/books/${tagged.id}/cover`, { method: "POST", headers: admin, body: cover })).status).toBe(204);

      const deep = await scan(server(), admin, library.id, "deep");
      expect(deep).toMatchObject({ status: "completed", errors: 0, booksUpdated: 0, booksDeleted: 0 });
      await server().server.services.thumbnails.idle();
      expect((await server().json("GET", `/api/v1/books/${tagged.id}`, undefined, admin)).body).toMatchObject({ title: "Edited in Longbox", number: 7 });

      expect(snapshot(root)).toEqual(before);
    } finally {
      chmodTree(root, 0o644, 0o755);
    }
  }, 60_000);
});
