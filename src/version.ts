import packageJson from "../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;

// Set by build.ts (Bun.build `define`) in the compiled binary; undeclared when run from source.
declare const LONGBOX_BUILD_COMMIT: string | undefined;
declare const LONGBOX_BUILD_TARGET: string | undefined;

/** What `longbox --version` prints: version, commit, target and Bun version, one per line. */
export function versionReport(): string {
  const commit = typeof LONGBOX_BUILD_COMMIT === "string" ? LONGBOX_BUILD_COMMIT : "none (run from source)";
  const target = typeof LONGBOX_BUILD_TARGET === "string" ? LONGBOX_BUILD_TARGET : `source (${process.platform}-${process.arch})`;
  return `longbox ${VERSION}\ncommit ${commit}\ntarget ${target}\nbun ${Bun.version}\n`;
}
