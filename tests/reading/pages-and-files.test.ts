import { beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { unzipSync } from "fflate";
import sharp from "sharp";
import { basic, PASSWORD } from "../helpers/auth";
import { booksOf, makeCbz } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { sha256 } from "../helpers/digests";
import { bearer, fetchAs, hideSeriesFrom, scan, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Sorting/Sorting #001.cbz": "cbz/kavita/sorting.zip",
  "Documents/komga.pdf": "pdf/komga/komga.pdf",
  "Documents/Variations für Bizet ſ.pdf": "pdf/kavita/test_ſ.pdf",
  "Hidden/Hidden #001.cbz": "cbz/kavita/ComicInfo2.zip",
};

/** The first page's bytes as they are in the CBZ at `path`. */
function firstPageOf(path: string): Uint8Array {
  const entries = unzipSync(new Uint8Array(readFileSync(path)));
  return entries[Object.keys(entries).sort()[0]!]!;
}

forEachDatabase("Pages and file downloads", (server) => {
  let library: ScannedLibrary;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
    await hideSeriesFrom(server(), library.readerId, library.books["Hidden #001.cbz"]!.seriesId);
  });
  const asReader = (path: string, init: RequestInit = {}) => fetchAs(server(), library.readerToken, path, init);
  const book = (name: string) => library.books[name]!;
  const pageCache = () => join(server().dir, "data", "page-cache");
  /** Where the page cache keeps the page of this ETag (<2 characters>/<page tag>). */
  const cachedFile = (etag: string) => {
    const tag = etag.slice(1, -1);
    return join(pageCache(), tag.slice(0, 2), tag);
  };
  /** The id of the book catalogued for the file at `path`. */
  const bookAt = async (path: string) => {
    const books = await booksOf(server(), bearer(library.adminToken), library.libraryId);
    return books.find((candidate) => basename(candidate.filePath) === basename(path))!.id as string;
  };

  test("the page list comes from the catalogue, numbered from 1", async () => {
    const { status, body } = await server().json("GET", `/api/v1/books/${book("Sorting #001.cbz").id}/pages`, undefined, bearer(library.readerToken));
    expect(status).toBe(200);
    expect(body).toEqual([
      { number: 1, fileName: "sorting/page 2.jpg", mediaType: "image/jpeg", width: 1002, height: 1500, size: expect.any(Number) },
      { number: 2, fileName: "sorting/page 10.jpg", mediaType: "image/jpeg", width: 580, height: 822, size: expect.any(Number) },
    ]);
  });

  test("a page is the image with its type and a strong ETag, revalidated on every use (a rescan may change it); 304 on revalidation", async () => {
    const response = await asReader(`/api/v1/books/${book("Sorting #001.cbz").id}/pages/2`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    const etag = response.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const { width, height } = await sharp(new Uint8Array(await response.arrayBuffer())).metadata();
    expect([width, height]).toEqual([580, 822]);
    const again = await asReader(`/api/v1/books/${book("Sorting #001.cbz").id}/pages/2`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    const weak = await asReader(`/api/v1/books/${book("Sorting #001.cbz").id}/pages/2`, { headers: { "if-none-match": `"other", W/${etag}` } });
    expect(weak.status).toBe(304);
    const otherPage = await asReader(`/api/v1/books/${book("Sorting #001.cbz").id}/pages/1`, { headers: { "if-none-match": etag } });
    expect(otherPage.status).toBe(200);
  });

  test("?width scales a page down through sharp, with its own ETag; never up", async () => {
    const id = book("Sorting #001.cbz").id;
    const scaled = await asReader(`/api/v1/books/${id}/pages/1?width=200`);
    expect(scaled.status).toBe(200);
    const metadata = await sharp(new Uint8Array(await scaled.arrayBuffer())).metadata();
    expect(metadata.width).toBe(200);
    expect(Math.abs(metadata.height! - (1500 * 200) / 1002)).toBeLessThanOrEqual(1);
    const original = await asReader(`/api/v1/books/${id}/pages/1`);
    expect(original.headers.get("etag")).not.toBe(scaled.headers.get("etag"));
    const wider = await asReader(`/api/v1/books/${id}/pages/2?width=2000`);
    expect((await sharp(new Uint8Array(await wider.arrayBuffer())).metadata()).width).toBe(580);
    for (const width of ["0", "abc", "100000"]) {
      expect((await asReader(`/api/v1/books/${id}/pages/1?width=${width}`)).status).toBe(400);
    }
  });

  test("pages outside 1..pageCount are 404; a non-number is 400; hidden, unknown and anonymous requests fail", async () => {
    const id = book("Captain Science #001.cbz").id;
    for (const n of [0, 6, -1]) expect((await asReader(`/api/v1/books/${id}/pages/${n}`)).status).toBe(404);
    expect((await asReader(`/api/v1/books/${id}/pages/5`)).status).toBe(200);
    expect((await asReader(`/api/v1/books/${id}/pages/two`)).status).toBe(400);
    expect((await asReader(`/api/v1/books/${crypto.randomUUID()}/pages/1`)).status).toBe(404);
    expect((await fetchAs(server(), undefined, `/api/v1/books/${id}/pages/1`)).status).toBe(401);
    expect((await fetchAs(server(), undefined, `/api/v1/books/${id}/pages`)).status).toBe(401);
    const hidden = book("Hidden #001.cbz").id;
    expect((await asReader(`/api/v1/books/${hidden}/pages`)).status).toBe(404);
    expect((await asReader(`/api/v1/books/${hidden}/pages/1`)).status).toBe(404);
    expect((await asReader(`/api/v1/books/${hidden}/file`)).status).toBe(404);
    expect((await fetchAs(server(), library.adminToken, `/api/v1/books/${hidden}/pages`)).status).toBe(200);
  });

  test("PDF pages are rendered and kept in the page cache, which answers the next request; a file gone from disk is a 404, cached or not", async () => {
    const pdf = book("komga.pdf");
    const first = await asReader(`/api/v1/books/${pdf.id}/pages/1`);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/jpeg");
    const bytes = new Uint8Array(await first.arrayBuffer());
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    // <2 characters>/<page tag>, with no extension.
    const cached = readdirSync(pageCache(), { recursive: true }).filter((name) => /^[0-9a-f]{2}\/[0-9a-f]{64}$/.test(String(name)));
    expect(cached.length).toBeGreaterThanOrEqual(1);
    // The cache answers: a stand-in put in the cached page's place is what comes back.
    const standIn = new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 3, background: "red" } }).png().toBuffer());
    writeFileSync(cachedFile(first.headers.get("etag")!), standIn);
    try {
      const second = await asReader(`/api/v1/books/${pdf.id}/pages/1`);
      expect(second.status).toBe(200);
      expect(second.headers.get("content-type")).toBe("image/png");
      expect(sha256(new Uint8Array(await second.arrayBuffer()))).toBe(sha256(standIn));
    } finally {
      writeFileSync(cachedFile(first.headers.get("etag")!), bytes);
    }
    // The catalogue no longer describes a file gone from disk: its pages are 404, cached or not.
    const path = join(library.root, "Documents", "komga.pdf");
    renameSync(path, `${path}.away`);
    try {
      for (const page of ["1", "1?width=100"]) {
        const gone = await asReader(`/api/v1/books/${pdf.id}/pages/${page}`);
        expect(gone.status).toBe(404);
        expect((await gone.json()).message).toContain("no longer on disk");
      }
      const revalidated = await asReader(`/api/v1/books/${pdf.id}/pages/1`, { headers: { "if-none-match": first.headers.get("etag")! } });
      expect(revalidated.status).toBe(404);
      await revalidated.arrayBuffer();
    } finally {
      renameSync(`${path}.away`, path);
    }
  });

  test("a browser's prefetch of a page to render is declined (204, never stored) while another prefetch is being rendered; requests that someone waits for never are", async () => {
    const prefetch = { "sec-purpose": "prefetch" };
    const komga = `/api/v1/books/${book("komga.pdf").id}/pages/1`;
    const other = `/api/v1/books/${book("Variations für Bizet ſ.pdf").id}/pages/1`;
    // Widths no other test asks for: nothing cached, each must be rendered. Which of the two
    // prefetches comes first is up to the connections.
    const prefetched = [`${komga}?width=333`, `${other}?width=333`];
    const [one, two, wanted] = await Promise.all([...prefetched.map((path) => asReader(path, { headers: prefetch })), asReader(`${other}?width=334`)]);
    expect([one!.status, two!.status].sort()).toEqual([200, 204]);
    expect(wanted!.status).toBe(200);
    const [accepted, declined] = one!.status === 200 ? [one!, two!] : [two!, one!];
    const declinedPath = prefetched[one!.status === 200 ? 1 : 0]!;
    expect(declined.headers.get("cache-control")).toBe("no-store");
    expect((await declined.arrayBuffer()).byteLength).toBe(0);
    expect((await sharp(new Uint8Array(await accepted.arrayBuffer())).metadata()).width).toBe(333);
    expect((await sharp(new Uint8Array(await wanted!.arrayBuffer())).metadata()).width).toBe(334);
    // Alone, the declined prefetch is rendered like any request.
    const again = await asReader(declinedPath, { headers: prefetch });
    expect(again.status).toBe(200);
    expect(again.headers.get("cache-control")).toBe("private, no-cache");
    expect((await sharp(new Uint8Array(await again.arrayBuffer())).metadata()).width).toBe(333);
    // One already cached is answered from the cache while another prefetch is being rendered
    // (a page 4000 px wide, which takes far longer than the 50 ms the second request waits).
    const rendering = asReader(`${komga}?width=4000`, { headers: prefetch });
    await Bun.sleep(50);
    const cached = await asReader(declinedPath, { headers: prefetch });
    expect(cached.status).toBe(200);
    expect((await rendering).status).toBe(200);
    await Promise.all([(await rendering).arrayBuffer(), cached.arrayBuffer()]);
  });

  test("the file downloads whole with its media type, validators and a safe Content-Disposition", async () => {
    const pdf = book("Variations für Bizet ſ.pdf");
    const response = await asReader(`/api/v1/books/${pdf.id}/file`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(response.headers.get("etag")).toBe(`"${pdf.fileHash}"`);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="Variations fur Bizet s.pdf"; filename*=UTF-8''Variations%20f%C3%BCr%20Bizet%20%C5%BF.pdf`,
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.length).toBe(pdf.fileSize);
    expect(sha256(bytes)).toBe(pdf.fileHash);
    const cbz = await asReader(`/api/v1/books/${book("Sorting #001.cbz").id}/file`);
    expect(cbz.headers.get("content-type")).toBe("application/vnd.comicbook+zip");
    expect(cbz.headers.get("content-disposition")).toBe(`attachment; filename="Sorting #001.cbz"; filename*=UTF-8''Sorting%20%23001.cbz`);
    await cbz.arrayBuffer();
  });

  test("single byte ranges: first bytes, middle, suffix, open-ended; 416 outside the file", async () => {
    const pdf = book("Variations für Bizet ſ.pdf");
    const whole = readFileSync(join(library.root, "Documents", "Variations für Bizet ſ.pdf"));
    const size = whole.length;
    const ranged = async (range: string) => {
      const response = await asReader(`/api/v1/books/${pdf.id}/file`, { headers: { range } });
      return { status: response.status, contentRange: response.headers.get("content-range"), length: response.headers.get("content-length"), bytes: new Uint8Array(await response.arrayBuffer()) };
    };
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=1000-1999", 1000, 1999],
      ["bytes=-100", size - 100, size - 1],
      [`bytes=${size - 10}-`, size - 10, size - 1],
      [`bytes=${size - 5}-${size + 500}`, size - 5, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const result = await ranged(range);
      expect({ range, status: result.status, contentRange: result.contentRange, length: result.length }).toEqual({
        range,
        status: 206,
        contentRange: `bytes ${start}-${end}/${size}`,
        length: String(end - start + 1),
      });
      expect(Buffer.from(result.bytes).equals(whole.subarray(start, end + 1))).toBe(true);
    }
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, "bytes=-0"]) {
      const result = await ranged(range);
      expect({ range, status: result.status, contentRange: result.contentRange }).toEqual({ range, status: 416, contentRange: `bytes */${size}` });
    }
    // Several ranges, or nonsense, get the whole file.
    for (const range of ["bytes=0-1,5-6", "pages=1-2", "bytes=9-3"]) {
      const result = await ranged(range);
      expect({ range, status: result.status, length: result.bytes.length }).toEqual({ range, status: 200, length: size });
    }
  });

  test("a resumed download reassembles to the same SHA-256; If-Range with a stale validator restarts it", async () => {
    const target = book("Sorting #001.cbz");
    const path = `/api/v1/books/${target.id}/file`;
    const first = await asReader(path, { headers: { range: "bytes=0-49999" } });
    expect(first.status).toBe(206);
    const etag = first.headers.get("etag")!;
    const head = new Uint8Array(await first.arrayBuffer());
    const rest = await asReader(path, { headers: { range: `bytes=${head.length}-`, "if-range": etag } });
    expect(rest.status).toBe(206);
    const tail = new Uint8Array(await rest.arrayBuffer());
    expect(sha256(Buffer.concat([head, tail]))).toBe(target.fileHash);
    const stale = await asReader(path, { headers: { range: "bytes=10-", "if-range": '"not-the-current-version"' } });
    expect(stale.status).toBe(200);
    expect(sha256(new Uint8Array(await stale.arrayBuffer()))).toBe(target.fileHash);
    const byDate = await asReader(path, { headers: { range: "bytes=10-19", "if-range": first.headers.get("last-modified")! } });
    expect(byDate.status).toBe(206);
    await byDate.arrayBuffer();
  });

  // Deflated pages are read through the plugin, from the archive kept open; stored ones are sent
  // as a range of the file, from where the page was found. Neither may outlive a rewrite.
  for (const [pages, level] of [["deflated", 6], ["stored", 0]] as const) {
    test(`a book rewritten on disk since its last page was read is read anew (${pages} pages): the page is the new file's`, async () => {
      const folder = `Rewritten ${pages}`;
      const path = join(library.root, folder, `${folder} #001.cbz`);
      await makeCbz(path, { pages: 2, seed: 21, level });
      const before = firstPageOf(path);
      await scan(server(), library.adminToken, library.libraryId);
      const id = await bookAt(path);
      const pageOne = async () => {
        const response = await asReader(`/api/v1/books/${id}/pages/1`);
        return { status: response.status, sha: sha256(await response.arrayBuffer()) };
      };
      expect(await pageOne()).toEqual({ status: 200, sha: sha256(before) });
      expect(await pageOne()).toEqual({ status: 200, sha: sha256(before) }); // from the open archive, or the remembered place
      // Other pages under longer entry names (other offsets, another size), and a later modification time.
      await makeCbz(path, { pages: 2, seed: 22, level, prefix: "rewritten-page-" });
      utimesSync(path, new Date(), new Date(Date.now() + 5000));
      const after = firstPageOf(path);
      expect(sha256(after)).not.toBe(sha256(before));
      expect(await pageOne()).toEqual({ status: 200, sha: sha256(after) });
    });
  }

  test("a book rewritten on disk before a rescan: its pages are the new file's, under ETags and cache entries of their own; a rescan names them by the new hash", async () => {
    const path = join(library.root, "Redrawn", "Redrawn #001.cbz");
    await makeCbz(path, { pages: 2, seed: 23 });
    await scan(server(), library.adminToken, library.libraryId);
    const id = await bookAt(path);
    const resized = async (headers: Record<string, string> = {}) => {
      const response = await asReader(`/api/v1/books/${id}/pages/1?width=32`, { headers });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, etag: response.headers.get("etag"), cacheControl: response.headers.get("cache-control"), bytes };
    };
    // (Not toMatchObject with expect.stringMatching: Bun 1.4 writes the matcher into the object it checks.)
    const validated = (answer: { status: number; etag: string | null; cacheControl: string | null }) => {
      expect({ status: answer.status, cacheControl: answer.cacheControl }).toEqual({ status: 200, cacheControl: "private, no-cache" });
      expect(answer.etag).toMatch(/^"[0-9a-f]{64}"$/);
    };
    const old = await resized();
    validated(old);
    expect(existsSync(cachedFile(old.etag!))).toBe(true);

    // Same page names and dimensions, other pixels; a later modification time whatever the file system's resolution.
    await makeCbz(path, { pages: 2, seed: 24 });
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const stale = await resized();
    validated(stale);
    expect(stale.etag).not.toBe(old.etag);
    expect(sha256(stale.bytes)).not.toBe(sha256(old.bytes));
    const metadata = await sharp(stale.bytes).metadata();
    expect([metadata.width, metadata.height]).toEqual([32, 48]);
    // Kept under its own tag: the next request is answered from the cache, not from the old render.
    expect(existsSync(cachedFile(stale.etag!))).toBe(true);
    expect(sha256(readFileSync(cachedFile(stale.etag!)))).toBe(sha256(stale.bytes));
    // The old ETag names the old content: no 304 for it; the new one gets one.
    const revalidated = await resized({ "if-none-match": old.etag! });
    expect(revalidated.status).toBe(200);
    expect(sha256(revalidated.bytes)).toBe(sha256(stale.bytes));
    expect((await resized({ "if-none-match": stale.etag! })).status).toBe(304);
    // The other page routes answer alike: Komga's (the stored page) and OPDS-PSE's (resized, the same tag).
    const komga = await server().fetch(`/komga/api/v1/books/${id}/pages/1`, { headers: { ...basic("reader", PASSWORD), "if-none-match": old.etag! } });
    expect(komga.status).toBe(200);
    expect(sha256(await komga.arrayBuffer())).toBe(sha256(firstPageOf(path)));
    const opds = await server().fetch(`/opds/v1.2/books/${id}/pages/0?maxWidth=32`, { headers: basic("reader", PASSWORD) });
    expect({ status: opds.status, etag: opds.headers.get("etag") }).toEqual({ status: 200, etag: stale.etag });
    expect(sha256(await opds.arrayBuffer())).toBe(sha256(stale.bytes));

    await scan(server(), library.adminToken, library.libraryId);
    const rescanned = await resized();
    validated(rescanned);
    // Named by the new content's hash now: neither earlier tag.
    expect([old.etag, stale.etag]).not.toContain(rescanned.etag);
    expect(sha256(rescanned.bytes)).toBe(sha256(stale.bytes));
    expect(existsSync(cachedFile(rescanned.etag!))).toBe(true);
    expect((await resized({ "if-none-match": rescanned.etag! })).status).toBe(304);
    expect((await resized({ "if-none-match": old.etag! })).status).toBe(200);
  });

  test("a book rewritten on disk before a rescan is downloaded under a validator of its own: the scan's ETag gets neither a 304 nor a range of the new bytes", async () => {
    const path = join(library.root, "Resumed", "Resumed #001.cbz");
    await makeCbz(path, { pages: 2, seed: 25 });
    await scan(server(), library.adminToken, library.libraryId);
    const url = `/api/v1/books/${await bookAt(path)}/file`;
    const scanned = await asReader(url);
    const oldEtag = scanned.headers.get("etag")!;
    expect(oldEtag).toBe(`"${sha256(await scanned.arrayBuffer())}"`);

    // Another file, of another size, in its place; not rescanned.
    await makeCbz(path, { pages: 3, seed: 26 });
    const now = await asReader(url);
    const bytes = new Uint8Array(await now.arrayBuffer());
    expect(sha256(bytes)).toBe(sha256(readFileSync(path)));
    expect(now.headers.get("etag")).not.toBe(oldEtag);
    const revalidated = await asReader(url, { headers: { "if-none-match": oldEtag } });
    expect(revalidated.status).toBe(200);
    await revalidated.arrayBuffer();
    // A download resumed under the old ETag gets the whole new file, not its tail after the old one's head.
    const resumed = await asReader(url, { headers: { range: "bytes=100-", "if-range": oldEtag } });
    expect(resumed.status).toBe(200);
    expect(sha256(new Uint8Array(await resumed.arrayBuffer()))).toBe(sha256(bytes));
    // The new validator works as any other, until a rescan names the file by its hash again.
    const newEtag = now.headers.get("etag")!;
    expect((await asReader(url, { headers: { "if-none-match": newEtag } })).status).toBe(304);
    const ranged = await asReader(url, { headers: { range: "bytes=100-", "if-range": newEtag } });
    expect(ranged.status).toBe(206);
    await ranged.arrayBuffer();
    await scan(server(), library.adminToken, library.libraryId);
    const rescanned = await asReader(url);
    expect(rescanned.headers.get("etag")).toBe(`"${sha256(bytes)}"`);
    await rescanned.arrayBuffer();
  });

  test("a file gone from disk is a 404 that says so", async () => {
    const target = book("Captain Science #001.cbz");
    const path = join(library.root, "Captain Science", "Captain Science #001.cbz");
    renameSync(path, `${path}.away`);
    try {
      const response = await server().json("GET", `/api/v1/books/${target.id}/file`, undefined, bearer(library.readerToken));
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "NotFound", message: expect.stringContaining("no longer on disk") });
      expect((await asReader(`/api/v1/books/${target.id}/pages/1`)).status).toBe(404);
    } finally {
      renameSync(`${path}.away`, path);
    }
  });
}, { komga_api: { enabled: true } }); // the Komga page route is checked beside the REST one
