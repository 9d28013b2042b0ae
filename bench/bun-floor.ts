/**
 * The floor under Longbox's page serving: a bare `Bun.serve` on the same Bun runtime, one
 * process, that answers `GET /<name>` with the file `<root>/<name>` as Longbox answers a stored
 * CBZ page (a `Bun.file` slice, an ETag, 304 on If-None-Match) and does nothing else: no
 * routing framework, credentials, database, visibility or file checks. What Longbox does per
 * request can only cost more than this; bench/reading.ts measures it in the same runs as nginx
 * and Longbox, so a target above the floor is named as such.
 *
 * `--confine` adds the file check Longbox makes on every page it reads (src/library/book-files.ts:
 * the file's real path, links resolved, must lie inside the root; the stat already taken is
 * reused, as Longbox does for a path without links), so that ./page-overhead.ts can tell its
 * cost from the rest of what Longbox adds.
 *
 *   bun bench/bun-floor.ts <root> [--confine]      (prints the URL, serves until killed)
 */
import { realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";

const root = process.argv[2];
if (!root) throw new Error("usage: bun bench/bun-floor.ts <root> [--confine]");
const confine = process.argv.includes("--confine");
const realRoot = realpathSync.native(root) + sep;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = join(root, new URL(request.url).pathname.slice(1));
    const info = statSync(path, { throwIfNoEntry: false });
    if (!info?.isFile()) return new Response(null, { status: 404 });
    const size = info.size;
    const etag = `"floor-${size}"`;
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers: { etag } });
    if (confine && !realpathSync.native(path).startsWith(realRoot)) return new Response(null, { status: 404 });
    return new Response(Bun.file(path).slice(0, size), { headers: { etag, "content-type": "image/jpeg" } });
  },
});
console.log(server.url.href);
