/**
 * Build-time macros for the readers and the installable web app.
 *
 * bundleReaders: bundles the browser code of the readers (static/js/reader/comic.js and
 * epub.js, with @panzoom/panzoom and foliate-js) while Bun transpiles or compiles the server,
 * so the single executable carries ready bundles and needs no node_modules. Imported
 * `with { type: "macro" }` from ./assets.ts.
 *
 * Bun.build cannot run inside a macro (the bundler would wait on itself), so the Bun CLI is run
 * into a temporary folder. Code splitting keeps what both readers share in one chunk, and the
 * EPUB formats foliate-js can load but Longbox never hands it (MOBI, FB2, PDF...) in chunks that
 * are never requested. Every file name carries its content hash, so the files are cached for good.
 * Each file comes with its gzip, as the static assets do (./embedded-files-macro.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedText, withGzip } from "./embedded-files-macro";

const projectRoot = join(import.meta.dir, "..", "..", "..");

export interface ReaderBundles {
  /** File name of each reader's entry module, by reader. */
  entries: { comic: string; epub: string };
  /** Every file of the bundle (entries and chunks) by name, with its gzip. */
  files: Record<string, EmbeddedText>;
}

export function bundleReaders(): ReaderBundles {
  const sources = join(projectRoot, "static", "js", "reader");
  const out = mkdtempSync(join(tmpdir(), "longbox-reader-"));
  try {
    const build = Bun.spawnSync(
      [
        process.execPath,
        "build",
        join(sources, "comic.js"),
        join(sources, "epub.js"),
        "--target=browser",
        "--format=esm",
        "--splitting",
        "--minify",
        `--outdir=${out}`,
        "--entry-naming=[name]-[hash].js",
        "--chunk-naming=chunk-[hash].js",
      ],
      { cwd: projectRoot, env: { ...process.env, NO_COLOR: "1" } },
    );
    if (build.exitCode !== 0) throw new Error(`bundling the readers failed:\n${build.stderr.toString()}`);
    const files = Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name), "utf8")]));
    const entry = (reader: string) => {
      const name = Object.keys(files).find((file) => file.startsWith(`${reader}-`));
      if (!name) throw new Error(`the reader bundle has no ${reader} entry`);
      return name;
    };
    return { entries: { comic: entry("comic"), epub: entry("epub") }, files: withGzip(files) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The web app's PNG icons (static/icons/icon-*.png, made by scripts/render-icons.ts), base64 by file name. */
export function appIcons(): Record<string, string> {
  const folder = join(projectRoot, "static", "icons");
  return Object.fromEntries(
    readdirSync(folder)
      .filter((name) => /^icon-\d+\.png$/.test(name))
      .map((name) => [name, readFileSync(join(folder, name)).toString("base64")]),
  );
}
