/**
 * JPEG XL pages (which the bundled sharp does not read): a CBZ holding one is listed with all of
 * its pages, the JXL page sized from its header; it is served as it is to a client whose Accept
 * names image/jxl and as JPEG to every other one (a browser's Accept); a JXL cover makes a
 * thumbnail; a JXL page nothing can read is an analysis error naming it, and still a page.
 * The JXL files are encoded here with the same library (libjxl as WebAssembly).
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import encodeJxl from "@jsquash/jxl/encode.js";
import sharp from "sharp";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, createLibrary, jpegPage, placeFixture, scan, tempFolder, writeCbz } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const RED = { r: 200, g: 40, b: 30 };
const BROWSER_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

async function jxlImage(width: number, height: number): Promise<Uint8Array> {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let at = 0; at < data.length; at += 4) data.set([RED.r, RED.g, RED.b, 255], at);
  return new Uint8Array(await encodeJxl({ data, width, height, colorSpace: "srgb" } as ImageData, { quality: 95 }));
}

forEachDatabase("JPEG XL pages", (server) => {
  let admin: Record<string, string>;
  let jxl: Uint8Array;
  let books: Record<string, any>[];
  const book = (file: string) => books.find((candidate) => candidate.filePath.endsWith(file))!;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    jxl = await jxlImage(40, 60);
    const root = tempFolder();
    const jpegs = Object.fromEntries(await Promise.all([1, 2, 3, 4].map(async (page) => [`page-00${page}.jpg`, await jpegPage(page)] as const)));
    writeCbz(join(root, "Mixed", "Mixed 1.cbz"), { ...jpegs, "page-005.jxl": jxl });
    writeCbz(join(root, "Mixed", "Mixed 2.cbz"), { "page-001.jxl": jxl, "page-002.jpg": jpegs["page-001.jpg"]! });
    // A JXL signature and nothing a decoder can read.
    writeCbz(join(root, "Mixed", "Mixed 3.cbz"), { "page-001.jpg": jpegs["page-002.jpg"]!, "page-002.jxl": new Uint8Array([0xff, 0x0a]) });
    // A real one: JPEG, PNG, WebP, AVIF and JPEG XL pages (the JXL one was dropped before).
    placeFixture("cbz/stump/book-image-format-test.zip", join(root, "Formats", "Formats 1.cbz"));
    const library = await createLibrary(server(), admin, { name: "jxl", path: root });
    expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed" });
    await server().server.services.thumbnails.idle();
    books = await booksOf(server(), admin, library.id);
  });

  test("a CBZ with a JPEG XL page lists every page; the JXL page is sized from its header", async () => {
    const mixed = book("Mixed 1.cbz");
    expect(mixed).toMatchObject({ pageCount: 5, analyzed: true, analysisError: null });
    const { body: pages } = await server().json("GET", `/api/v1/books/${mixed.id}/pages`, undefined, admin);
    expect(pages[4]).toMatchObject({ number: 5, fileName: "page-005.jxl", mediaType: "image/jxl", width: 40, height: 60 });
  });

  test("the JXL page goes as JPEG to a browser, as JPEG XL to a client that takes it", async () => {
    const path = `/api/v1/books/${book("Mixed 1.cbz").id}/pages/5`;
    const converted = await server().fetch(path, { headers: { ...admin, accept: BROWSER_ACCEPT } });
    expect(converted.status).toBe(200);
    expect(converted.headers.get("content-type")).toBe("image/jpeg");
    const pixels = await sharp(new Uint8Array(await converted.arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
    expect(pixels.info).toMatchObject({ format: "raw", width: 40, height: 60 });
    expect(Math.abs(pixels.data[0]! - RED.r) + Math.abs(pixels.data[1]! - RED.g) + Math.abs(pixels.data[2]! - RED.b)).toBeLessThan(30);

    const original = await server().fetch(path, { headers: { ...admin, accept: "image/jxl,image/*;q=0.8" } });
    expect(original.headers.get("content-type")).toBe("image/jxl");
    expect(Array.from(new Uint8Array(await original.arrayBuffer()))).toEqual(Array.from(jxl));
    expect(original.headers.get("etag")).not.toBe(converted.headers.get("etag"));
    // The answer depends on Accept, and says so to caches; a 304 too.
    expect(original.headers.get("vary")).toBe("Accept");
    expect(converted.headers.get("vary")).toBe("Accept");
    const revalidated = await server().fetch(path, { headers: { ...admin, accept: BROWSER_ACCEPT, "if-none-match": converted.headers.get("etag")! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("vary")).toBe("Accept");
    // Named with quality 0, JPEG XL is refused, not taken.
    const refused = await server().fetch(path, { headers: { ...admin, accept: "image/jxl;q=0, image/*;q=0.8" } });
    expect(refused.headers.get("content-type")).toBe("image/jpeg");
    expect(refused.headers.get("etag")).toBe(converted.headers.get("etag"));

    // The JPEG pages are as they were.
    const jpeg = await server().fetch(`/api/v1/books/${book("Mixed 1.cbz").id}/pages/1`, { headers: { ...admin, accept: BROWSER_ACCEPT } });
    expect(jpeg.headers.get("content-type")).toBe("image/jpeg");
    // Scaled for a reader, the JXL page comes back as a JPEG of that width.
    const scaled = await server().fetch(`${path}?width=20`, { headers: { ...admin, accept: BROWSER_ACCEPT } });
    expect(scaled.status).toBe(200);
    expect(await sharp(new Uint8Array(await scaled.arrayBuffer())).metadata()).toMatchObject({ format: "jpeg", width: 20 });
  });

  test("a real CBZ of five image formats lists five pages and serves its JXL page", async () => {
    const formats = book("Formats 1.cbz");
    expect(formats).toMatchObject({ pageCount: 5, analyzed: true });
    const { body: pages } = await server().json("GET", `/api/v1/books/${formats.id}/pages`, undefined, admin);
    expect(pages[2]).toMatchObject({ fileName: "book/3.jxl", mediaType: "image/jxl", width: 550, height: 368 });
    const page = await server().fetch(`/api/v1/books/${formats.id}/pages/3`, { headers: { ...admin, accept: BROWSER_ACCEPT } });
    expect(page.headers.get("content-type")).toBe("image/jpeg");
    expect(await sharp(new Uint8Array(await page.arrayBuffer())).metadata()).toMatchObject({ format: "jpeg", width: 550, height: 368 });
  });

  test("a JPEG XL cover makes a thumbnail", async () => {
    const cover = book("Mixed 2.cbz");
    expect(cover.analysisError).toBeNull();
    const thumbnail = await server().fetch(`/api/v1/books/${cover.id}/thumbnail`, { headers: admin });
    expect(thumbnail.status).toBe(200);
    expect(cover.pageCount).toBe(2);
    // The thumbnail is the JXL page's (red), not the JPEG page after it.
    const { channels } = await sharp(new Uint8Array(await thumbnail.arrayBuffer())).stats();
    const mean = channels.map((channel) => channel.mean);
    expect(Math.abs(mean[0]! - RED.r) + Math.abs(mean[1]! - RED.g) + Math.abs(mean[2]! - RED.b)).toBeLessThan(30);
  });

  test("a JPEG XL page nothing reads is an analysis error naming it, never a shorter book", async () => {
    const broken = book("Mixed 3.cbz");
    expect(broken.pageCount).toBe(2);
    expect(broken.analysisError).toContain("Page 2 (page-002.jxl)");
    const { body } = await server().json("GET", "/api/v1/books/errors?errorType=page_extraction", undefined, admin);
    const listed = body.groups[0].books.data.find((entry: Record<string, any>) => entry.book.id === broken.id);
    expect(listed.errors).toEqual([expect.objectContaining({ errorType: "page_extraction", message: expect.stringContaining("page-002.jxl") })]);
  });
});
