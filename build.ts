/**
 * Builds the single executable: `bun run build [--entry src/main.ts] [--outfile dist/longbox]`.
 *
 * Compiles for the host platform, minified, with bytecode, without .env/bunfig.toml autoloading
 * in the binary, and with two build plugins for the dependencies that cannot be bundled as they
 * are (see /work/shared/notes/single-binary.md for what was measured):
 * - sharp: its loader `require`s the native addon from node_modules at run time. It is swapped
 *   for a module that embeds the addon and libvips and loads them from a cache folder
 *   (src/platform/sharp-binary-loader.ts).
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

interface PackageJson {
  version: string;
  optionalDependencies?: Record<string, string>;
}

function packageFolder(name: string): { folder: string; pkg: PackageJson } {
  const manifest = requireFromProject.resolve(`${name}/package.json`);
  return { folder: dirname(manifest), pkg: requireFromProject(manifest) as PackageJson };
}

/** The one file in `folder` whose name matches `pattern` (fails the build otherwise). */
function onlyFile(folder: string, pattern: RegExp): string {
  const matches = readdirSync(folder).filter((name) => pattern.test(name));
  if (matches.length !== 1) throw new Error(`expected one file matching ${pattern} in ${folder}, found ${matches.length}`);
  return join(folder, matches[0]!);
}

/**
 * Replaces sharp/dist/sharp.mjs (sharp's native loader) with a module that embeds the addon of
 * the host platform and the libvips it links against, both found in the installed packages.
 */
function sharpAddonPlugin(): BunPlugin {
  const platform = `${process.platform}-${process.arch}`;
  const sharp = packageFolder("sharp");
  const addonPackage = packageFolder(`@img/sharp-${platform}`);
  const libvipsName = Object.keys(addonPackage.pkg.optionalDependencies ?? {}).find((name) => name.startsWith("@img/sharp-libvips-"));
  if (!libvipsName) throw new Error(`@img/sharp-${platform} names no libvips package`);
  const libvipsPackage = packageFolder(libvipsName);
  const addonFile = onlyFile(join(addonPackage.folder, "lib"), /\.node$/);
  const libvipsFile = onlyFile(join(libvipsPackage.folder, "lib"), /^libvips-cpp\.so\./);
  // Paths under node_modules/, kept in the cache folder so that the addon's rpath finds libvips.
  const modulePath = (file: string) => relative(dirname(dirname(addonPackage.folder)), file);
  const loader = join(projectRoot, "src/platform/sharp-binary-loader.ts");
  const contents = `
import addonPath from ${JSON.stringify(addonFile)} with { type: "file" };
import libvipsPath from ${JSON.stringify(libvipsFile)} with { type: "file" };
import { loadSharpAddon } from ${JSON.stringify(loader)};
export default loadSharpAddon(
  { embeddedPath: addonPath, modulePath: ${JSON.stringify(modulePath(addonFile))} },
  [{ embeddedPath: libvipsPath, modulePath: ${JSON.stringify(modulePath(libvipsFile))} }],
  ${JSON.stringify(`sharp-${sharp.pkg.version}-${platform}-libvips-${libvipsPackage.pkg.version}`)},
);`;
  return {
    name: "sharp-embedded-addon",
    setup(build) {
      build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]sharp\.mjs$/ }, () => ({ contents, loader: "js" }));
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

const started = performance.now();
const outfile = resolve(options.outfile);
const result = await Bun.build({
  entrypoints: [resolve(options.entry)],
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
  target: "bun",
  format: "esm",
  minify: true,
  bytecode: true,
  plugins: [sharpAddonPlugin(), pdfjsCanvasPlugin()],
});
for (const log of result.logs) console.error(log);
if (!result.success) process.exit(1);
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
