/**
 * Loads a native addon embedded in the compiled binary. build.ts swaps modules that would
 * `require` an addon from node_modules (sharp's loader, the napi-rs loaders of @napi-rs/canvas
 * and @node-rs/argon2) for ones that call loadEmbeddedAddon.
 *
 * Addons and the libraries they link against are embedded (`type: "file"`) and copied, on first
 * use, into a per-version cache folder laid out like node_modules, so that rpaths such as
 * sharp's `$ORIGIN/../../sharp-libvips-<platform>/lib` find their libraries; the addon is
 * loaded from there. Left to itself, Bun would write napi addons into $TMPDIR on every start
 * (which must then allow executables). Development (`bun run`) does not use this module.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { threadId } from "node:worker_threads";

export interface EmbeddedNativeFile {
  /** Path of the embedded file, as an import `with { type: "file" }` gives it. */
  embeddedPath: string;
  /** Where it belongs under node_modules, e.g. "@img/sharp-linux-x64/lib/sharp-linux-x64-0.35.5.node". */
  modulePath: string;
}

/**
 * The folder that receives native files: $LONGBOX_NATIVE_CACHE, else the user's cache folder
 * ($XDG_CACHE_HOME or ~/.cache), else the temporary folder. A per-user folder, not a shared
 * /tmp path, so that no other user can plant a library there.
 */
function nativeCacheRoot(): string {
  const { LONGBOX_NATIVE_CACHE, XDG_CACHE_HOME } = process.env;
  if (LONGBOX_NATIVE_CACHE) return LONGBOX_NATIVE_CACHE;
  if (XDG_CACHE_HOME) return join(XDG_CACHE_HOME, "longbox", "native");
  const home = homedir();
  return home ? join(home, ".cache", "longbox", "native") : join(tmpdir(), `longbox-native-${process.getuid?.() ?? "user"}`);
}

/** Copies an embedded file to `target` unless an identical-size copy is already there. */
function materialize(file: EmbeddedNativeFile, target: string): void {
  // Sizes first: the embedded file is only read (tens of MB for canvas) when it must be copied.
  if (existsSync(target) && statSync(target).size === statSync(file.embeddedPath).size) return;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  // Write then rename: another process, or another thread of this one (PDF workers load
  // canvas), starting at the same time never loads a partial file.
  const partial = `${target}.${process.pid}.${threadId}.tmp`;
  writeFileSync(partial, readFileSync(file.embeddedPath), { mode: 0o700 });
  renameSync(partial, target);
}

/**
 * Copies the addon and the libraries it links against into `<cache>/<version>/node_modules`
 * and loads the addon. `version` names the folder, so that two builds never share files.
 */
export function loadEmbeddedAddon(addon: EmbeddedNativeFile, libraries: EmbeddedNativeFile[], version: string): unknown {
  const modulesFolder = join(nativeCacheRoot(), version, "node_modules");
  for (const library of libraries) materialize(library, join(modulesFolder, library.modulePath));
  const addonPath = join(modulesFolder, addon.modulePath);
  materialize(addon, addonPath);
  return createRequire(import.meta.url)(addonPath);
}
