/**
 * Static assets of the web interface (embedded at build time, see ./embedded-files-macro.ts),
 * served under /static/. Each URL the templates use carries a content hash (`?v=...`), so the
 * answer may be cached for a year; gzip is prepared once at start for clients that accept it.
 */
import { Elysia } from "elysia";
import { embeddedStaticFiles } from "./embedded-files-macro" with { type: "macro" };

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
  contentType: string;
  version: string;
}

const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  webmanifest: "application/manifest+json",
};

const assets = new Map<string, Asset>();
for (const [path, text] of Object.entries(embeddedStaticFiles())) {
  const body = new TextEncoder().encode(text);
  const extension = path.slice(path.lastIndexOf(".") + 1);
  assets.set(path, {
    body,
    gzipped: new Uint8Array(Bun.gzipSync(body, { level: 9 })),
    contentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
    version: Bun.hash(body).toString(36),
  });
}

/** An embedded asset itself (throws for an unknown one: a programming error). */
export function embeddedAsset(path: string): Asset {
  const asset = assets.get(path);
  if (!asset) throw new Error(`no embedded asset ${path}`);
  return asset;
}

/** The URL of an embedded asset, with its content version (throws for an unknown asset: a template bug). */
export function assetUrl(path: string): string {
  return `/static/${path}?v=${embeddedAsset(path).version}`;
}

export function staticAssetRoutes() {
  return new Elysia({ name: "web-static-assets" }).get("/static/*", ({ params, request, set }) => {
    const asset = assets.get(params["*"]);
    if (!asset) {
      set.status = 404;
      return new Response("not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    const etag = `"${asset.version}"`;
    const headers: Record<string, string> = {
      "content-type": asset.contentType,
      "cache-control": "public, max-age=31536000, immutable",
      etag,
      vary: "accept-encoding",
    };
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
    if (gzip) headers["content-encoding"] = "gzip";
    return new Response(gzip ? asset.gzipped : asset.body, { headers });
  }, { detail: { hide: true } });
}
