/**
 * Build-time macro: reads the web interface's templates and static assets while Bun bundles (or
 * transpiles) the code, so they are inlined into the program and the single executable needs no
 * file beside it. Imported `with { type: "macro" }` from ./templates.ts and ./assets.ts.
 * All embedded files are text (the icons are SVG). The static assets come with their gzip,
 * made here, so the server never compresses while it runs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

const projectRoot = join(import.meta.dir, "../../..");

function filesUnder(folder: string, extensions: string[]): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && extensions.some((extension) => entry.name.endsWith(extension)))
    .map((entry) => join(entry.parentPath, entry.name));
}

function readAll(folder: string, extensions: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of filesUnder(folder, extensions).sort()) files[relative(folder, file)] = readFileSync(file, "utf8");
  return files;
}

/** A text asset as served: the text, and its gzip (level 9) in base64. */
export interface EmbeddedText {
  text: string;
  gzipBase64: string;
}

/** Each text with its gzip (a macro returns JSON-like values: the bytes travel as base64). */
export function withGzip(texts: Record<string, string>): Record<string, EmbeddedText> {
  return Object.fromEntries(
    Object.entries(texts).map(([name, text]) => [name, { text, gzipBase64: Buffer.from(Bun.gzipSync(text, { level: 9 })).toString("base64") }]),
  );
}

/** templates/**\/*.eta by path without the extension ("layout", "partials/nav", "pages/home"). */
export function embeddedTemplates(): Record<string, string> {
  const templates: Record<string, string> = {};
  for (const [path, text] of Object.entries(readAll(join(projectRoot, "templates"), [".eta"]))) templates[path.replace(/\.eta$/, "")] = text;
  return templates;
}

/** static/** plus htmx and its SSE extension from their npm packages, under vendor/, each with its gzip. */
export function embeddedStaticFiles(): Record<string, EmbeddedText> {
  const requireFromProject = createRequire(join(projectRoot, "package.json"));
  // The readers' sources import npm packages: they are served only as bundles (./reader-assets-macro.ts).
  const files = Object.entries(readAll(join(projectRoot, "static"), [".css", ".js", ".svg", ".webmanifest"])).filter(
    ([path]) => !path.startsWith("js/reader/"),
  );
  return withGzip({
    ...Object.fromEntries(files),
    "vendor/htmx.min.js": readFileSync(requireFromProject.resolve("htmx.org/dist/htmx.min.js"), "utf8"),
    "vendor/htmx-ext-sse.min.js": readFileSync(requireFromProject.resolve("htmx-ext-sse/dist/sse.min.js"), "utf8"),
  });
}
