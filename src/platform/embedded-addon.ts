/**
 * Loads sharp's native addon inside the compiled binary. build.ts swaps this in for sharp's own
 * loader (sharp/dist/sharp.mjs), which looks the addon up in node_modules with `require`.
 *
 * The addon and libvips are embedded in the binary (`type: "file"`). The addon finds libvips
 * through its rpath `$ORIGIN/../../sharp-libvips-<platform>/lib`, so both are copied, on first
 * start, into a cache folder laid out like node_modules/@img/..., and the addon is loaded from
 * there. Development (`bun run`) does not use this module: sharp loads itself from node_modules.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";

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
  const bytes = readFileSync(file.embeddedPath);
  if (existsSync(target) && statSync(target).size === bytes.length) return;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  // Write then rename: another process starting at the same time never loads a partial file.
  const partial = `${target}.${process.pid}.tmp`;
  writeFileSync(partial, bytes, { mode: 0o700 });
  renameSync(partial, target);
}

/**
 * Copies the addon and the libraries it links against into `<cache>/<version>/node_modules`
 * and loads the addon. `version` names the folder, so that two builds never share files.
 */
export function loadSharpAddon(addon: EmbeddedNativeFile, libraries: EmbeddedNativeFile[], version: string): unknown {
  const modulesFolder = join(nativeCacheRoot(), version, "node_modules");
  for (const library of libraries) materialize(library, join(modulesFolder, library.modulePath));
  const addonPath = join(modulesFolder, addon.modulePath);
  materialize(addon, addonPath);
  return createRequire(import.meta.url)(addonPath);
}
