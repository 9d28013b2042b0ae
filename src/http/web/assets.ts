/**
 * Every file of the web interface, embedded at build time and served from memory:
 * - /static/<path>: static/** (./embedded-files-macro.ts); each URL the templates use carries a
 *   content hash (`?v=...`, assetUrl);
 * - /static/reader/<file>: the readers' bundled code (./reader-assets-macro.ts), whose file
 *   names carry content hashes;
 * - /icons/<file>: the installable web app's PNG home-screen icons, which change only with a
 *   release but whose addresses (in the manifest) carry no version.
 * Hashed addresses are cached for good, icons for a week. Text is gzipped (level 9) by the
 * macros, while the code is bundled: a client that accepts gzip gets those bytes, and the server
 * never compresses while it runs. Build time rather than a background pass at start-up: about
 * 130 KB more in the binary (the gzips, in base64), no compression at start, and no "not
 * compressed yet" state to handle.
 */
import { Elysia } from "elysia";
import { clientHasCurrent, notModified } from "../conditional";
import type { EmbeddedText } from "./embedded-files-macro";
import { embeddedStaticFiles } from "./embedded-files-macro" with { type: "macro" };
import { appIcons, bundleReaders } from "./reader-assets-macro" with { type: "macro" };

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  cacheControl: string;
  version: string;
  /** Text only: images are compressed already. */
  gzipped?: Uint8Array<ArrayBuffer>;
}

const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  webmanifest: "application/manifest+json",
  png: "image/png",
};
const FOREVER = "public, max-age=31536000, immutable";
const A_WEEK = "public, max-age=604800";

/** By address ("/static/css/site.css", "/static/reader/comic-<hash>.js", "/icons/icon-192.png"). */
const assets = new Map<string, Asset>();
function embed(address: string, body: Uint8Array<ArrayBuffer>, cacheControl: string, gzipped?: Uint8Array<ArrayBuffer>) {
  const extension = address.slice(address.lastIndexOf(".") + 1);
  assets.set(address, {
    body,
    contentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
    cacheControl,
    version: Bun.hash(body).toString(36),
    gzipped,
  });
}
const bytes = (base64: string) => new Uint8Array(Buffer.from(base64, "base64"));
const embedText = (address: string, file: EmbeddedText) => embed(address, new TextEncoder().encode(file.text), FOREVER, bytes(file.gzipBase64));
for (const [path, file] of Object.entries(embeddedStaticFiles())) embedText(`/static/${path}`, file);
const bundles = bundleReaders();
for (const [name, file] of Object.entries(bundles.files)) embedText(`/static/reader/${name}`, file);
for (const [name, base64] of Object.entries(appIcons())) embed(`/icons/${name}`, bytes(base64), A_WEEK);

/** The address of each reader's entry module, for the pages' `<script type="module">`. */
export const READER_SCRIPTS = {
  comic: `/static/reader/${bundles.entries.comic}`,
  epub: `/static/reader/${bundles.entries.epub}`,
};
/** The classic script the comic reader's page runs right after its markup: draws the first screen (static/js/reader/first-screen.js). */
export const COMIC_FIRST_SCREEN_SCRIPT = `/static/reader/${bundles.firstScreen}`;
/** Each reader's modules to preload: its entry and the chunks it imports statically. */
export const READER_MODULES = {
  comic: [READER_SCRIPTS.comic, ...bundles.chunks.comic.map((name) => `/static/reader/${name}`)],
  epub: [READER_SCRIPTS.epub, ...bundles.chunks.epub.map((name) => `/static/reader/${name}`)],
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
  if (asset.gzipped) headers.vary = "accept-encoding";
  if (clientHasCurrent(request, etag)) return notModified(headers);
  if (!asset.gzipped || !/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return new Response(asset.body, { headers });
  return new Response(asset.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
}

export function assetRoutes() {
  return new Elysia({ name: "web-assets" })
    .get("/static/*", ({ params, request, set }) => assetResponse(`/static/${params["*"]}`, request, set), { detail: { hide: true } })
    .get("/icons/*", ({ params, request, set }) => assetResponse(`/icons/${params["*"]}`, request, set), { detail: { hide: true } });
}
