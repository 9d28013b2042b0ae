/**
 * Files the readers and the installable web app need beyond the plain static assets, embedded
 * at build time (see ./reader-assets-macro.ts) and served from memory: the readers' bundled
 * code under /static/reader/ and the PNG home-screen icons under /icons/. Names of bundle files
 * carry content hashes and icons change only with a release: both are cached for good. Code is
 * gzipped once, on first request, for clients that accept it.
 */
import { Elysia, t } from "elysia";
import { notFound } from "../../errors";
import { appIcons, bundleReaders } from "./reader-assets-macro" with { type: "macro" };

const bundles = bundleReaders();
const icons = new Map(Object.entries(appIcons()).map(([name, base64]) => [name, Buffer.from(base64, "base64")]));
const BUNDLE_PREFIX = "/static/reader/";
const FOREVER = "public, max-age=31536000, immutable";

/** The address of each reader's entry module, for the pages' `<script type="module">`. */
export const READER_SCRIPTS = {
  comic: `${BUNDLE_PREFIX}${bundles.entries.comic}`,
  epub: `${BUNDLE_PREFIX}${bundles.entries.epub}`,
};

const gzipped = new Map<string, Uint8Array<ArrayBuffer>>();

function bundleFile(file: string, acceptEncoding: string): Response {
  const source = Object.hasOwn(bundles.files, file) ? bundles.files[file] : undefined;
  if (source === undefined) throw notFound("file");
  const headers: Record<string, string> = { "content-type": "text/javascript; charset=utf-8", "cache-control": FOREVER, vary: "accept-encoding" };
  if (!/\bgzip\b/.test(acceptEncoding)) return new Response(source, { headers });
  let body = gzipped.get(file);
  if (!body) gzipped.set(file, (body = Bun.gzipSync(source)));
  return new Response(body, { headers: { ...headers, "content-encoding": "gzip" } });
}

export function readerAssetRoutes() {
  const FileParams = t.Object({ file: t.String({ maxLength: 64 }) });
  return new Elysia({ name: "reader-asset-routes" })
    .get(`${BUNDLE_PREFIX}:file`, ({ params, request }) => bundleFile(params.file, request.headers.get("accept-encoding") ?? ""), {
      params: FileParams,
      detail: { hide: true },
    })
    .get(
      "/icons/:file",
      ({ params }) => {
        const icon = icons.get(params.file);
        if (!icon) throw notFound("icon");
        return new Response(icon, { headers: { "content-type": "image/png", "cache-control": "public, max-age=604800" } });
      },
      { params: FileParams, detail: { hide: true } },
    );
}
