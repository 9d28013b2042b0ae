/**
 * Builds the single executable.
 *   bun run build [--entry src/main.ts] [--outfile dist/longbox]   the host platform
 *   bun run build -- --target linux-arm64                          one release target
 *   npm run build:all                                              every release target
 * Release targets (scripts/build-targets.ts) are written as dist/longbox-<version>-<target>
 * with a `.sha256` beside each.
 *
 * Minified, with bytecode, without .env/bunfig.toml autoloading in the binary, with the commit
 * and target built in for `longbox --version`, and with build plugins for the dependencies that
 * cannot be bundled as they are (see ../shared/notes/single-binary.md for what was measured):
 * - sharp: its loader `require`s the native addon from node_modules at run time. It is swapped
 *   for a module that embeds the addon and libvips of the target platform and loads them from a
 *   cache folder (src/platform/embedded-addon.ts).
 * - @napi-rs/canvas, @node-rs/argon2: their napi-rs loaders are swapped the same way; left
 *   alone, Bun would write their addons into $TMPDIR on every start.
 * - pdf.js: it loads @napi-rs/canvas with a run-time `require`; that becomes a static import,
 *   so the bundler embeds canvas and its native addon.
 */
import type { BunPlugin } from "bun";
import { createHash } from "node:crypto";
import { createReadStream, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { hostTarget, napiRsPlatform, releaseTarget, RELEASE_TARGETS, sharpPlatform, TargetPackages, type BuildTarget } from "./scripts/build-targets";

const projectRoot = import.meta.dir;
const packages = new TargetPackages(projectRoot);
const embeddedAddonLoader = join(projectRoot, "src/platform/embedded-addon.ts");

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
 * the target platform and the libvips it links against.
 */
function sharpAddonPlugin(target: BuildTarget): BunPlugin {
  const sharp = packages.installed("sharp");
  const platform = sharpPlatform(target);
  const addonPackage = packages.pinnedBy(sharp, `@img/sharp-${platform}`);
  const libvipsName = Object.keys(addonPackage.pkg.optionalDependencies ?? {}).find((name) => name.startsWith("@img/sharp-libvips-"));
  if (!libvipsName) throw new Error(`@img/sharp-${platform} names no libvips package`);
  const libvipsPackage = packages.pinnedBy(addonPackage, libvipsName);
  const addonFile = onlyFile(join(addonPackage.folder, "lib"), /\.node$/);
  const libvipsFile = onlyFile(join(libvipsPackage.folder, "lib"), /^libvips-cpp\.so\./);
  const version = `sharp-${sharp.pkg.version}-${platform}-libvips-${libvipsPackage.pkg.version}`;
  // Both packages sit in one node_modules folder (the project's or the target cache's).
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
 * package with `require`) with a module that embeds the addon of the target platform
 * (`<name>-linux-<arch>-gnu`).
 */
function napiRsAddonPlugin(name: string, loaderFile: string, target: BuildTarget): BunPlugin {
  const main = packages.installed(name);
  const platformPackage = `${name}-${napiRsPlatform(target)}`;
  const addonPackage = packages.pinnedBy(main, platformPackage);
  const addonFile = onlyFile(addonPackage.folder, /\.node$/);
  const version = `${name.replace(/^@/, "").replace("/", "-")}-${main.pkg.version}-${napiRsPlatform(target)}`;
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

/**
 * Worker threads the server starts, bundled as extra entry points of the binary (Bun does not
 * find `new Worker(...)` targets by itself). The build plugins apply to them too.
 */
const WORKER_ENTRIES = ["plugins/pdf/worker.ts", "src/library/file-digest-worker.ts", "src/db/sqlite-copy-worker.ts"];

/** The commit built, for `longbox --version` ("unknown" outside a git checkout). */
function currentCommit(): string {
  const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: projectRoot, stderr: "ignore" });
  const commit = git.exitCode === 0 ? git.stdout.toString().trim() : "";
  if (!commit) return "unknown";
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: projectRoot }).stdout.toString().trim();
  return dirty ? `${commit}-dirty` : commit;
}

async function compile(entry: string, target: BuildTarget, outfile: string): Promise<void> {
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [resolve(projectRoot, entry), ...WORKER_ENTRIES.map((worker) => join(projectRoot, worker))],
    compile: { outfile, autoloadDotenv: false, autoloadBunfig: false, ...(target.bunTarget ? { target: target.bunTarget } : {}) },
    target: "bun",
    format: "esm",
    minify: true,
    bytecode: true,
    // Read by src/version.ts; from source they are undefined.
    define: {
      LONGBOX_BUILD_COMMIT: JSON.stringify(currentCommit()),
      LONGBOX_BUILD_TARGET: JSON.stringify(target.name),
    },
    // Inside the binary, every module's import.meta.url is the main entry's, /$bunfs/root/<name>:
    // worker entries stored by file name alone, next to it, are found by the same
    // `new URL("./worker.ts", import.meta.url)` that finds them from source.
    naming: { entry: "[name].[ext]" },
    plugins: [
      sharpAddonPlugin(target),
      napiRsAddonPlugin("@napi-rs/canvas", "js-binding.js", target),
      napiRsAddonPlugin("@node-rs/argon2", "index.js", target),
      pdfjsCanvasPlugin(),
    ],
  });
  for (const log of result.logs) console.error(log);
  if (!result.success) process.exit(1);
  const size = Bun.file(outfile).size;
  console.log(`built ${outfile} for ${target.name} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** `<file>.sha256` in sha256sum's format, so `sha256sum -c` checks a download. */
async function writeChecksum(file: string): Promise<void> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  writeFileSync(`${file}.sha256`, `${hash.digest("hex")}  ${basename(file)}\n`);
}

const { values: options } = parseArgs({
  options: {
    entry: { type: "string", default: "src/main.ts" },
    outfile: { type: "string" },
    target: { type: "string" },
    all: { type: "boolean", default: false },
  },
});

const { version } = (await Bun.file(join(projectRoot, "package.json")).json()) as { version: string };
const releaseFile = (target: BuildTarget) => join(projectRoot, "dist", `longbox-${version}-${target.name}`);

if (options.all || options.target) {
  if (options.all && (options.target || options.outfile)) throw new Error("--all writes every release target; it takes no --target or --outfile");
  const targets = options.all ? RELEASE_TARGETS : [releaseTarget(options.target!)];
  for (const target of targets) {
    const outfile = resolve(options.outfile ?? releaseFile(target));
    await compile(options.entry, target, outfile);
    await writeChecksum(outfile);
  }
} else {
  await compile(options.entry, hostTarget(), resolve(options.outfile ?? "dist/longbox"));
}
