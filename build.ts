/**
 * Builds the single executable: `bun run build [--entry src/main.ts] [--outfile dist/longbox]`.
 *
 * Compiles for the host platform, minified, with bytecode, without .env/bunfig.toml autoloading
 * in the binary, and with build plugins for the dependencies that cannot be bundled as they
 * are (see /work/shared/notes/single-binary.md for what was measured):
 * - sharp: its loader `require`s the native addon from node_modules at run time. It is swapped
 *   for a module that embeds the addon and libvips and loads them from a cache folder
 *   (src/platform/embedded-addon.ts).
 * - @napi-rs/canvas, @node-rs/argon2: their napi-rs loaders are swapped the same way; left
 *   alone, Bun would write their addons into $TMPDIR on every start.
 * - pdf.js: it loads @napi-rs/canvas with a run-time `require`; that becomes a static import,
 *   so the bundler embeds canvas and its native addon.
 */
import type { BunPlugin } from "bun";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";

const projectRoot = import.meta.dir;
const requireFromProject = createRequire(join(projectRoot, "package.json"));

const platform = `${process.platform}-${process.arch}`;
const embeddedAddonLoader = join(projectRoot, "src/platform/embedded-addon.ts");

interface PackageJson {
  version: string;
  optionalDependencies?: Record<string, string>;
}

function packageFolder(name: string, from = requireFromProject): { folder: string; pkg: PackageJson } {
  const manifest = from.resolve(`${name}/package.json`);
  return { folder: dirname(manifest), pkg: from(manifest) as PackageJson };
}

function isInstalled(name: string, from: NodeRequire): boolean {
  try {
    from.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The one file in `folder` whose name matches `pattern` (fails the build otherwise). */
function onlyFile(folder: string, pattern: RegExp): string {
  const matches = readdirSync(folder).filter((name) => pattern.test(name));
  if (matches.length !== 1) throw new Error(`expected one file matching ${pattern} in ${folder}, found ${matches.length}`);
  return join(folder, matches[0]!);
}

/** Source of a module that loads an addon embedded in the binary (see embeddedAddonLoader). */
function embeddedAddonSource(addon: string, libraries: string[], modulesRoot: string, version: string): string {
  // Paths under node_modules/, kept in the cache folder so that rpaths between them still work.
  const entry = (file: string, index: number) =>
    `{ embeddedPath: native${index}, modulePath: ${JSON.stringify(relative(modulesRoot, file))} }`;
  const files = [addon, ...libraries];
  return `
${files.map((file, index) => `import native${index} from ${JSON.stringify(file)} with { type: "file" };`).join("\n")}
import { loadEmbeddedAddon } from ${JSON.stringify(embeddedAddonLoader)};
const addon = loadEmbeddedAddon(${entry(addon, 0)}, [${libraries.map((file, index) => entry(file, index + 1)).join(", ")}], ${JSON.stringify(version)});`;
}

/**
 * Replaces sharp/dist/sharp.mjs (sharp's native loader) with a module that embeds the addon of
 * the host platform and the libvips it links against, both found in the installed packages.
 */
function sharpAddonPlugin(): BunPlugin {
  const sharp = packageFolder("sharp");
  const addonPackage = packageFolder(`@img/sharp-${platform}`);
  const libvipsName = Object.keys(addonPackage.pkg.optionalDependencies ?? {}).find((name) => name.startsWith("@img/sharp-libvips-"));
  if (!libvipsName) throw new Error(`@img/sharp-${platform} names no libvips package`);
  const libvipsPackage = packageFolder(libvipsName);
  const addonFile = onlyFile(join(addonPackage.folder, "lib"), /\.node$/);
  const libvipsFile = onlyFile(join(libvipsPackage.folder, "lib"), /^libvips-cpp\.so\./);
  const version = `sharp-${sharp.pkg.version}-${platform}-libvips-${libvipsPackage.pkg.version}`;
  const contents = `${embeddedAddonSource(addonFile, [libvipsFile], dirname(dirname(addonPackage.folder)), version)}
export default addon;`;
  return {
    name: "sharp-embedded-addon",
    setup(build) {
      build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]sharp\.mjs$/ }, () => ({ contents, loader: "js" }));
    },
  };
}

/**
 * Replaces the loader napi-rs generates for `name` (`loaderFile`, which tries every platform
 * package with `require`) with a module that embeds the addon of the installed host-platform
 * package (`<name>-<platform>-<arch>[-gnu|-musl|-msvc]`).
 */
function napiRsAddonPlugin(name: string, loaderFile: string): BunPlugin {
  const main = packageFolder(name);
  const fromMain = createRequire(join(main.folder, "package.json"));
  const prefix = `${name}-${platform}`;
  const installed = Object.keys(main.pkg.optionalDependencies ?? {}).filter(
    (candidate) => candidate.startsWith(prefix) && /^(|-gnu|-musl|-msvc)$/.test(candidate.slice(prefix.length)) && isInstalled(candidate, fromMain),
  );
  // Two would mean a gnu and a musl build side by side: which one the host needs is not known here.
  if (installed.length !== 1) throw new Error(`expected one installed ${name} package for ${platform}, found ${installed.join(", ") || "none"}`);
  const addonPackage = packageFolder(installed[0]!, fromMain);
  const addonFile = onlyFile(addonPackage.folder, /\.node$/);
  const version = `${name.replace(/^@/, "").replace("/", "-")}-${main.pkg.version}-${installed[0]!.slice(name.length + 1)}`;
  // CommonJS like the loader it replaces: the package's other files `require` it.
  const contents = `${embeddedAddonSource(addonFile, [], dirname(dirname(addonPackage.folder)), version)}
module.exports = addon;`;
  // By suffix: node_modules may be a symbolic link, resolved or not in the paths the bundler sees.
  const filter = new RegExp(`${escapeRegExp(`/${name}/${loaderFile}`)}$`);
  return {
    name: `${name}-embedded-addon`,
    setup(build) {
      build.onLoad({ filter }, () => ({ contents, loader: "js" }));
    },
  };
}

/** Makes pdf.js import @napi-rs/canvas statically instead of `require`-ing it at run time. */
function pdfjsCanvasPlugin(): BunPlugin {
  const canvasRequire = 'require("@napi-rs/canvas")';
  return {
    name: "pdfjs-static-canvas",
    setup(build) {
      build.onLoad({ filter: /[\\/]pdfjs-dist[\\/]legacy[\\/]build[\\/]pdf\.mjs$/ }, async ({ path }) => {
        const source = await Bun.file(path).text();
        const uses = source.split(canvasRequire).length - 1;
        // pdf.js 6.5 has two; another count means pdf.js changed and this needs a look.
        if (uses !== 2) throw new Error(`expected 2 × ${canvasRequire} in ${path}, found ${uses}`);
        return {
          contents: `import * as napiRsCanvas from "@napi-rs/canvas";\n${source.replaceAll(canvasRequire, "napiRsCanvas")}`,
          loader: "js",
        };
      });
    },
  };
}

const { values: options } = parseArgs({
  options: {
    entry: { type: "string", default: "src/main.ts" },
    outfile: { type: "string", default: "dist/longbox" },
  },
});

/**
 * Worker threads the server starts, bundled as extra entry points of the binary (Bun does not
 * find `new Worker(...)` targets by itself). The build plugins apply to them too.
 */
const WORKER_ENTRIES = ["plugins/pdf/worker.ts"];

const started = performance.now();
const outfile = resolve(options.outfile);
const result = await Bun.build({
  entrypoints: [resolve(options.entry), ...WORKER_ENTRIES.map((entry) => join(projectRoot, entry))],
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
  target: "bun",
  format: "esm",
  minify: true,
  bytecode: true,
  // Inside the binary, every module's import.meta.url is the main entry's, /$bunfs/root/<name>:
  // worker entries stored by file name alone, next to it, are found by the same
  // `new URL("./worker.ts", import.meta.url)` that finds them from source.
  naming: { entry: "[name].[ext]" },
  plugins: [
    sharpAddonPlugin(),
    napiRsAddonPlugin("@napi-rs/canvas", "js-binding.js"),
    napiRsAddonPlugin("@node-rs/argon2", "index.js"),
    pdfjsCanvasPlugin(),
  ],
});
for (const log of result.logs) console.error(log);
if (!result.success) process.exit(1);
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
