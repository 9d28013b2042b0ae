/**
 * Every file of the web interface, embedded at build time and served from memory:
 * - /static/<path>: static/** (./embedded-files-macro.ts); each URL the templates use carries a
 *   content hash (`?v=...`, assetUrl);
 * - /static/reader/<file>: the readers' bundled code (./reader-assets-macro.ts), whose file
 *   names carry content hashes;
 * - /icons/<file>: the installable web app's PNG home-screen icons, which change only with a
 *   release but whose addresses (in the manifest) carry no version.
 * Hashed addresses are cached for good, icons for a week. Text is gzipped on its first request
 * by a client that accepts it, and kept.
 */
import { Elysia } from "elysia";
import { clientHasCurrent, notModified } from "../conditional";
import { embeddedStaticFiles } from "./embedded-files-macro" with { type: "macro" };
import { appIcons, bundleReaders } from "./reader-assets-macro" with { type: "macro" };

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  cacheControl: string;
  version: string;
  /** Text; images are compressed already. */
  compressible: boolean;
  /** Made on the first request that accepts it. */
  gzipped?: Uint8Array<ArrayBuffer>;
}

const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  webmanifest: "application/manifest+json",
  png: "image/png",
};
const COMPRESSIBLE = new Set(["css", "js", "svg", "webmanifest"]);
const FOREVER = "public, max-age=31536000, immutable";
const A_WEEK = "public, max-age=604800";

/** By address ("/static/css/site.css", "/static/reader/comic-<hash>.js", "/icons/icon-192.png"). */
const assets = new Map<string, Asset>();
function embed(address: string, body: Uint8Array<ArrayBuffer>, cacheControl: string) {
  const extension = address.slice(address.lastIndexOf(".") + 1);
  assets.set(address, {
    body,
    contentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
    cacheControl,
    version: Bun.hash(body).toString(36),
    compressible: COMPRESSIBLE.has(extension),
  });
}
const text = (source: string) => new TextEncoder().encode(source);
for (const [path, source] of Object.entries(embeddedStaticFiles())) embed(`/static/${path}`, text(source), FOREVER);
const bundles = bundleReaders();
for (const [file, source] of Object.entries(bundles.files)) embed(`/static/reader/${file}`, text(source), FOREVER);
for (const [file, base64] of Object.entries(appIcons())) embed(`/icons/${file}`, new Uint8Array(Buffer.from(base64, "base64")), A_WEEK);

/** The address of each reader's entry module, for the pages' `<script type="module">`. */
export const READER_SCRIPTS = {
  comic: `/static/reader/${bundles.entries.comic}`,
  epub: `/static/reader/${bundles.entries.epub}`,
};

/** A static/** asset itself (throws for an unknown one: a programming error). */
export function embeddedAsset(path: string): Asset {
  const asset = assets.get(`/static/${path}`);
  if (!asset) throw new Error(`no embedded asset ${path}`);
  return asset;
}

/** The URL of a static/** asset, with its content version (throws for an unknown asset: a template bug). */
export function assetUrl(path: string): string {
  return `/static/${path}?v=${embeddedAsset(path).version}`;
}

function assetResponse(address: string, request: Request, set: { status?: number | string }): Response {
  const asset = assets.get(address);
  if (!asset) {
    // A plain answer: a missing file is no page to render.
    set.status = 404;
    return new Response("not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  const etag = `"${asset.version}"`;
  const headers: Record<string, string> = { "content-type": asset.contentType, "cache-control": asset.cacheControl, etag };
  if (asset.compressible) headers.vary = "accept-encoding";
  if (clientHasCurrent(request, etag)) return notModified(headers);
  if (!asset.compressible || !/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return new Response(asset.body, { headers });
  asset.gzipped ??= new Uint8Array(Bun.gzipSync(asset.body, { level: 9 }));
  return new Response(asset.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
}

export function assetRoutes() {
  return new Elysia({ name: "web-assets" })
    .get("/static/*", ({ params, request, set }) => assetResponse(`/static/${params["*"]}`, request, set), { detail: { hide: true } })
    .get("/icons/*", ({ params, request, set }) => assetResponse(`/icons/${params["*"]}`, request, set), { detail: { hide: true } });
}
