import { beforeAll, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { forEachDatabase } from "../helpers/server";
import { sha256 } from "../helpers/digests";
import { bearer, fetchAs, hideSeriesFrom, scan, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Captain Science/Captain Science #002.cbz": "cbz/kavita/sorting.zip",
  "Hidden/Hidden #001.cbz": "cbz/stump/book-image-format-test.zip",
};
const MAX_COVER_BYTES = 64 * 1024;

/** A PNG carrying EXIF metadata, which the stored cover must not keep. */
const coverPng = () =>
  sharp({ create: { width: 300, height: 450, channels: 3, background: { r: 200, g: 30, b: 60 } } })
    .withExif({ IFD0: { Copyright: "secret owner" } })
    .png()
    .toBuffer();

/** Random pixels do not compress: a PNG well over the limit. */
const hugePng = () => sharp(crypto.getRandomValues(new Uint8Array(300 * 300 * 3)), { raw: { width: 300, height: 300, channels: 3 } }).png().toBuffer();

const form = (bytes: Uint8Array, type = "image/png", field = "file") => {
  const body = new FormData();
  body.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), "cover.png");
  return body;
};

forEachDatabase(
  "Thumbnails and uploaded covers",
  (server) => {
    let library: ScannedLibrary;
    beforeAll(async () => {
      library = await scannedLibrary(server(), LAYOUT);
      await hideSeriesFrom(server(), library.readerId, library.books["Hidden #001.cbz"]!.seriesId);
    });
    const book = (name: string) => library.books[name]!;
    const asReader = (path: string, init: RequestInit = {}) => fetchAs(server(), library.readerToken, path, init);
    const asAdmin = (path: string, init: RequestInit = {}) => fetchAs(server(), library.adminToken, path, init);
    const image = async (response: Response) => {
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { bytes, etag: response.headers.get("etag"), type: response.headers.get("content-type"), metadata: await sharp(bytes).metadata() };
    };

    test("a book's thumbnail is the generated one (made on demand if needed), revalidated by ETag", async () => {
      const id = book("Captain Science #001.cbz").id;
      const response = await asReader(`/api/v1/books/${id}/thumbnail`);
      expect(response.headers.get("cache-control")).toBe("private, no-cache");
      const thumbnail = await image(response);
      expect(thumbnail.type).toBe("image/webp");
      expect(thumbnail.metadata.format).toBe("webp");
      const again = await asReader(`/api/v1/books/${id}/thumbnail`, { headers: { "if-none-match": thumbnail.etag! } });
      expect(again.status).toBe(304);
      expect((await asReader(`/api/v1/books/${crypto.randomUUID()}/thumbnail`)).status).toBe(404);
      expect((await asReader(`/api/v1/books/${book("Hidden #001.cbz").id}/thumbnail`)).status).toBe(404);
      expect((await fetchAs(server(), undefined, `/api/v1/books/${id}/thumbnail`)).status).toBe(401);
    });

    test("cover upload: admin only, multipart field `file`, images only (judged by content), 404 for unknown books", async () => {
      const id = book("Captain Science #001.cbz").id;
      const png = await coverPng();
      expect((await fetchAs(server(), undefined, `/api/v1/books/${id}/cover`, { method: "POST", body: form(png) })).status).toBe(401);
      expect((await asReader(`/api/v1/books/${id}/cover`, { method: "POST", body: form(png) })).status).toBe(403);
      expect((await asReader(`/api/v1/books/${id}/cover`, { method: "DELETE" })).status).toBe(403);
      expect((await asAdmin(`/api/v1/books/${crypto.randomUUID()}/cover`, { method: "POST", body: form(png) })).status).toBe(404);
      const notImage = await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: form(new TextEncoder().encode("<svg>not really</svg>")) });
      expect(notImage.status).toBe(400);
      expect(await notImage.json()).toMatchObject({ error: "BadRequest", details: { fields: { file: "must be an image" } } });
      const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
      expect((await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: form(svg, "image/svg+xml") })).status).toBe(400);
      expect((await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: form(png, "image/png", "image") })).status).toBe(400);
      const json = await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: JSON.stringify({ file: "x" }), headers: { "content-type": "application/json" } });
      expect(json.status).toBe(400);
    });

    test("an upload over files.max_cover_upload_bytes is 413, whether declared or streamed", async () => {
      const id = book("Captain Science #001.cbz").id;
      const huge = await hugePng();
      expect(huge.length).toBeGreaterThan(MAX_COVER_BYTES + 64 * 1024);
      const declared = await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: form(huge) });
      expect(declared.status).toBe(413);
      expect((await declared.json()).error).toBe("PayloadTooLarge");
      // Chunked, without Content-Length: refused while reading.
      const multipart = new Response(form(huge));
      const contentType = multipart.headers.get("content-type")!;
      const bytes = new Uint8Array(await multipart.arrayBuffer());
      let offset = 0;
      const chunks = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(offset, (offset += 16 * 1024)));
        },
      });
      const streamed = await asAdmin(`/api/v1/books/${id}/cover`, {
        method: "POST",
        body: chunks,
        headers: { "content-type": contentType },
        duplex: "half",
      } as RequestInit);
      expect(streamed.status).toBe(413);
      // Just over the limit, within the multipart allowance: the file itself is measured.
      const slightlyOver = await sharp(crypto.getRandomValues(new Uint8Array(160 * 160 * 3)), { raw: { width: 160, height: 160, channels: 3 } }).png().toBuffer();
      expect(slightlyOver.length).toBeGreaterThan(MAX_COVER_BYTES);
      expect(slightlyOver.length).toBeLessThan(MAX_COVER_BYTES + 64 * 1024);
      expect((await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: form(slightlyOver) })).status).toBe(413);
    });

    test("a valid PNG is re-encoded without its metadata, wins over the thumbnail, survives thumbnail cleanup, and can be removed", async () => {
      const id = book("Captain Science #001.cbz").id;
      const generated = await image(await asReader(`/api/v1/books/${id}/thumbnail`));
      const uploaded = await asAdmin(`/api/v1/books/${id}/cover`, { method: "POST", body: form(await coverPng()) });
      expect(uploaded.status).toBe(204);
      const cover = await image(await asReader(`/api/v1/books/${id}/thumbnail`));
      expect(cover.type).toBe("image/webp");
      expect(cover.metadata).toMatchObject({ format: "webp", height: 400, width: 267 });
      expect(cover.metadata.exif).toBeUndefined();
      expect(sha256(cover.bytes)).not.toBe(sha256(generated.bytes));
      expect(cover.etag).not.toBe(generated.etag);
      // Stored with the covers, apart from the thumbnails.
      expect(existsSync(join(server().dir, "data", "covers", "books", `${id}.webp`))).toBe(true);

      const cleanup = await server().json("POST", "/api/v1/maintenance/cleanup-thumbnails", undefined, bearer(library.adminToken));
      expect(cleanup.status).toBe(200);
      const afterCleanup = await image(await asReader(`/api/v1/books/${id}/thumbnail`));
      expect(sha256(afterCleanup.bytes)).toBe(sha256(cover.bytes));

      expect((await asAdmin(`/api/v1/books/${id}/cover`, { method: "DELETE" })).status).toBe(204);
      expect(existsSync(join(server().dir, "data", "covers", "books", `${id}.webp`))).toBe(false);
      const back = await image(await asReader(`/api/v1/books/${id}/thumbnail`));
      expect(sha256(back.bytes)).toBe(sha256(generated.bytes));
    });

    test("a series shows its first book's thumbnail unless a series cover was uploaded", async () => {
      const first = book("Captain Science #001.cbz");
      const bookThumbnail = await image(await asReader(`/api/v1/books/${first.id}/thumbnail`));
      const seriesThumbnail = await image(await asReader(`/api/v1/series/${first.seriesId}/thumbnail`));
      expect(sha256(seriesThumbnail.bytes)).toBe(sha256(bookThumbnail.bytes));
      expect((await asReader(`/api/v1/series/${first.seriesId}/cover`, { method: "POST", body: form(await coverPng()) })).status).toBe(403);
      expect((await asAdmin(`/api/v1/series/${first.seriesId}/cover`, { method: "POST", body: form(await coverPng()) })).status).toBe(204);
      const series = await server().json("GET", `/api/v1/series/${first.seriesId}`, undefined, bearer(library.readerToken));
      expect(series.body.hasCustomCover).toBe(true);
      const withCover = await image(await asReader(`/api/v1/series/${first.seriesId}/thumbnail`));
      expect(withCover.metadata).toMatchObject({ height: 400, width: 267 });
      // The web pages show the same pictures.
      expect(sha256((await image(await asReader(`/covers/series/${first.seriesId}`))).bytes)).toBe(sha256(withCover.bytes));
      expect(sha256((await image(await asReader(`/covers/books/${first.id}`))).bytes)).toBe(sha256(bookThumbnail.bytes));
      // The book keeps its own thumbnail.
      expect(sha256((await image(await asReader(`/api/v1/books/${first.id}/thumbnail`))).bytes)).toBe(sha256(bookThumbnail.bytes));
      expect((await asAdmin(`/api/v1/series/${first.seriesId}/cover`, { method: "DELETE" })).status).toBe(204);
      expect(sha256((await image(await asReader(`/api/v1/series/${first.seriesId}/thumbnail`))).bytes)).toBe(sha256(bookThumbnail.bytes));
      const hidden = book("Hidden #001.cbz").seriesId;
      expect((await asReader(`/api/v1/series/${hidden}/thumbnail`)).status).toBe(404);
      expect((await asReader(`/api/v1/series/${crypto.randomUUID()}/thumbnail`)).status).toBe(404);
    });

    test("the cleanup removes the uploaded cover of a book deleted for good, and keeps covers in use", async () => {
      const doomed = book("Captain Science #002.cbz");
      const kept = book("Captain Science #001.cbz");
      for (const target of [doomed, kept]) {
        expect((await asAdmin(`/api/v1/books/${target.id}/cover`, { method: "POST", body: form(await coverPng()) })).status).toBe(204);
      }
      const coverOf = (id: string) => join(server().dir, "data", "covers", "books", `${id}.webp`);
      rmSync(join(library.root, "Captain Science", "Captain Science #002.cbz"));
      await scan(server(), library.adminToken, library.libraryId);
      expect((await asAdmin(`/api/v1/books/${doomed.id}`, { method: "DELETE" })).status).toBe(204);
      expect(existsSync(coverOf(doomed.id))).toBe(true);
      const cleanup = await server().json("POST", "/api/v1/maintenance/cleanup-thumbnails", undefined, bearer(library.adminToken));
      expect(cleanup.status).toBe(200);
      expect(cleanup.body.removed).toBeGreaterThanOrEqual(1);
      expect(existsSync(coverOf(doomed.id))).toBe(false);
      expect(existsSync(coverOf(kept.id))).toBe(true);
    });
  },
  { files: { max_cover_upload_bytes: MAX_COVER_BYTES } },
);
