/**
 * The web interface's assets over HTTP: text is sent gzipped to a client that accepts it (the
 * gzip, level 9, of the very bytes sent to one that does not), with `vary: accept-encoding` and
 * one ETag for both; a matching If-None-Match is a 304; images are sent as they are.
 * Nothing seen over HTTP tells gzips made at build time from gzips the running server makes (at
 * start, or at the first request, then kept): that they are made at build time is checked on the
 * compiled binary, which carries them (tests/binary/binary.test.ts).
 */
import { expect, test } from "bun:test";
import { READER_SCRIPTS } from "../../src/http/web/assets";
import { forEachDatabase } from "../helpers/server";

const TEXT_ASSETS = [
  "/static/css/app.css",
  "/static/js/app.js",
  "/static/vendor/htmx.min.js",
  "/static/icons/no-cover.svg",
  "/static/manifest.webmanifest",
  // The readers' bundled code, whose addresses carry a content hash.
  READER_SCRIPTS.comic,
];

forEachDatabase("web assets", (server) => {
  const get = (path: string, headers: Record<string, string>) => server().fetch(path, { headers, decompress: false } as RequestInit);

  test("text assets: gzip for a client that accepts it, the same bytes and headers otherwise", async () => {
    for (const path of TEXT_ASSETS) {
      const plain = await get(path, { "accept-encoding": "identity" });
      expect({ path, status: plain.status }).toEqual({ path, status: 200 });
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect(plain.headers.get("vary")).toBe("accept-encoding");
      const etag = plain.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-z]+"$/);
      const body = new Uint8Array(await plain.arrayBuffer());
      expect(body.length).toBeGreaterThan(0);

      const zipped = await get(path, { "accept-encoding": "gzip, deflate, br" });
      expect(zipped.status).toBe(200);
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(zipped.headers.get("vary")).toBe("accept-encoding");
      expect(zipped.headers.get("etag")).toBe(etag);
      expect(zipped.headers.get("content-type")).toBe(plain.headers.get("content-type"));
      expect(zipped.headers.get("cache-control")).toBe(plain.headers.get("cache-control"));
      const gzip = new Uint8Array(await zipped.arrayBuffer());
      expect(Bun.gunzipSync(gzip)).toEqual(body);
      // The gzip of those bytes at level 9, as it has always been sent.
      expect(gzip).toEqual(Bun.gzipSync(body, { level: 9 }));

      const revalidated = await get(path, { "accept-encoding": "gzip", "if-none-match": etag! });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get("etag")).toBe(etag);
      expect(revalidated.headers.get("vary")).toBe("accept-encoding");
    }
  });

  test("a PNG icon is sent as it is, without vary", async () => {
    const icon = await get("/icons/icon-192.png", { "accept-encoding": "gzip" });
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/png");
    expect(icon.headers.get("content-encoding")).toBeNull();
    expect(icon.headers.get("vary")).toBeNull();
    expect(new Uint8Array(await icon.arrayBuffer()).slice(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  });
});
