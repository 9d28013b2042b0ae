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
 * Each file comes with its gzip, as the static assets do (./embedded-files-macro.ts). The comic
 * reader's first screen (static/js/reader/first-screen.js) is bundled apart, as a classic
 * script: the page runs it as soon as the reader's markup is parsed, not as a deferred module.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedText, withGzip } from "./embedded-files-macro";

const projectRoot = join(import.meta.dir, "..", "..", "..");

export interface ReaderBundles {
  /** File name of each reader's entry module, by reader. */
  entries: { comic: string; epub: string };
  /**
   * The chunks each reader's entry imports statically, directly or through another chunk: the
   * page preloads them with the entry (`modulepreload`), so that the browser does not find them
   * one import at a time.
   */
  chunks: { comic: string[]; epub: string[] };
  /** File name of static/js/reader/first-screen.js bundled as one classic script, for the comic reader's page. */
  firstScreen: string;
  /** Every file of the bundle (entries and chunks) by name, with its gzip. */
  files: Record<string, EmbeddedText>;
}

/** Runs `bun build` for the browser, minified, with `args`. */
function bunBuild(args: string[], what: string): void {
  const build = Bun.spawnSync([process.execPath, "build", "--target=browser", "--minify", ...args], { cwd: projectRoot, env: { ...process.env, NO_COLOR: "1" } });
  if (build.exitCode !== 0) throw new Error(`bundling ${what} failed:\n${build.stderr.toString()}`);
}

export function bundleReaders(): ReaderBundles {
  const sources = join(projectRoot, "static", "js", "reader");
  const out = mkdtempSync(join(tmpdir(), "longbox-reader-"));
  try {
    bunBuild(
      [
        join(sources, "comic.js"),
        join(sources, "epub.js"),
        "--format=esm",
        "--splitting",
        `--outdir=${out}`,
        "--entry-naming=[name]-[hash].js",
        "--chunk-naming=chunk-[hash].js",
      ],
      "the readers",
    );
    // The comic reader's first screen: a classic script the page runs as soon as it is parsed.
    bunBuild([join(sources, "first-screen.js"), "--format=iife", `--outdir=${out}`, "--entry-naming=[name]-[hash].js"], "the comic reader's first screen");
    const files = Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name), "utf8")]));
    const entry = (reader: string) => {
      const name = Object.keys(files).find((file) => file.startsWith(`${reader}-`));
      if (!name) throw new Error(`the reader bundle has no ${reader} entry`);
      return name;
    };
    const entries = { comic: entry("comic"), epub: entry("epub") };
    return {
      entries,
      chunks: { comic: staticChunks(files, entries.comic), epub: staticChunks(files, entries.epub) },
      firstScreen: entry("first-screen"),
      files: withGzip(files),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The chunks `module` imports statically, transitively. Bun's minified output writes a static
 * import as `from"./chunk-<hash>.js"` or `import"./chunk-<hash>.js"`; a dynamic `import("./…")`
 * (formats loaded on demand) does not match.
 */
function staticChunks(files: Record<string, string>, module: string, found = new Set<string>()): string[] {
  for (const [, chunk] of files[module]!.matchAll(/(?:from|import)\s*"\.\/(chunk-[a-z0-9]+\.js)"/g)) {
    if (found.has(chunk!) || !(chunk! in files)) continue;
    found.add(chunk!);
    staticChunks(files, chunk!, found);
  }
  return [...found];
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
