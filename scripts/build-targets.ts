/**
 * The platforms build.ts compiles for, and the native npm packages each one embeds.
 *
 * A target names Bun's runtime for it and the platform suffixes of the packages that carry
 * native addons (sharp + libvips, @napi-rs/canvas, @node-rs/argon2). npm installs only the
 * host's; the others are fetched with `npm pack` at the exact versions the installed main
 * packages pin (their optionalDependencies), and unpacked into a cache under node_modules, so a
 * build for any target runs from one machine with nothing but the npm registry.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface BuildTarget {
  /** Our name for it, used in artifact names and `longbox --version`. */
  name: string;
  /** `Bun.build({ compile: { target } })`; undefined compiles for the running Bun. */
  bunTarget?: Bun.Build.CompileTarget;
  arch: "x64" | "arm64";
}

/**
 * Release targets: `bun run build -- --target NAME`, all of them with `npm run build:all`.
 * All glibc. No musl targets: @napi-rs/canvas (PDF rendering) 1.1.1, the version the project
 * pins, publishes no musl packages (sharp and argon2 do), so a musl binary would fail at the
 * first PDF; and no musl C++ runtime can be installed here to test one (README "Install").
 */
export const RELEASE_TARGETS: BuildTarget[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64-modern", arch: "x64" },
  // x64 CPUs without AVX2 (Celeron, Atom, Pentium Silver NAS models).
  { name: "linux-x64-baseline", bunTarget: "bun-linux-x64-baseline", arch: "x64" },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", arch: "arm64" },
];

/** The machine running the build, compiled with the running Bun (what `bun run build` does). */
export function hostTarget(): BuildTarget {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) {
    throw new Error(`building on ${process.platform}-${process.arch} is not supported: Longbox's binaries are for Linux on x64 and arm64`);
  }
  return { name: `linux-${process.arch}`, arch: process.arch };
}

export function releaseTarget(name: string): BuildTarget {
  const target = RELEASE_TARGETS.find((candidate) => candidate.name === name);
  if (!target) throw new Error(`unknown target "${name}"; one of: ${RELEASE_TARGETS.map((t) => t.name).join(", ")}`);
  return target;
}

/** sharp names its (glibc) platform packages `linux-x64`. */
export function sharpPlatform(target: BuildTarget): string {
  return `linux-${target.arch}`;
}

/** napi-rs names them `linux-x64-gnu`. */
export function napiRsPlatform(target: BuildTarget): string {
  return `linux-${target.arch}-gnu`;
}

interface PackageJson {
  version: string;
  optionalDependencies?: Record<string, string>;
}

export interface PackageFolder {
  folder: string;
  pkg: PackageJson;
}

/**
 * Finds packages for one target: the project's node_modules when npm installed the right
 * version there (the host's), else a cache of `npm pack`ed tarballs.
 */
export class TargetPackages {
  private readonly fromProject: NodeRequire;
  private readonly cacheModules: string;

  constructor(projectRoot: string) {
    this.fromProject = createRequire(join(projectRoot, "package.json"));
    this.cacheModules = join(projectRoot, "node_modules", ".cache", "longbox-targets", "node_modules");
  }

  /** A package installed for the project (the main packages: sharp, @napi-rs/canvas, ...). */
  installed(name: string): PackageFolder {
    const manifest = this.fromProject.resolve(`${name}/package.json`);
    return { folder: dirname(manifest), pkg: this.fromProject(manifest) as PackageJson };
  }

  /** The platform package `name` at the version `dependent` pins for it, fetched if missing. */
  pinnedBy(dependent: PackageFolder, name: string): PackageFolder {
    const version = dependent.pkg.optionalDependencies?.[name];
    if (!version) throw new Error(`${dependent.folder} does not list ${name}: this target is not available for it`);
    const fromDependent = createRequire(join(dependent.folder, "package.json"));
    try {
      const manifest = fromDependent.resolve(`${name}/package.json`);
      const pkg = fromDependent(manifest) as PackageJson;
      if (pkg.version === version) return { folder: dirname(manifest), pkg };
    } catch {
      // Not installed for this machine: fetched below.
    }
    const folder = join(this.cacheModules, name);
    const manifest = join(folder, "package.json");
    const cached = () => JSON.parse(readFileSync(manifest, "utf8")) as PackageJson;
    if (!existsSync(manifest) || cached().version !== version) this.fetch(name, version, folder);
    return { folder, pkg: cached() };
  }

  private fetch(name: string, version: string, folder: string): void {
    const work = mkdtempSync(join(tmpdir(), "longbox-pack-"));
    try {
      const pack = Bun.spawnSync(["npm", "pack", `${name}@${version}`, "--pack-destination", work, "--silent"], { stderr: "pipe" });
      if (pack.exitCode !== 0) throw new Error(`npm pack ${name}@${version} failed: ${pack.stderr.toString()}`);
      const tarball = readdirSync(work).find((file) => file.endsWith(".tgz"));
      if (!tarball) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
      const unpacked = join(work, "unpacked");
      mkdirSync(unpacked);
      // npm tarballs hold one folder, `package/`; tar keeps the addons' file modes.
      const untar = Bun.spawnSync(["tar", "-xzf", join(work, tarball), "-C", unpacked, "--strip-components=1"], { stderr: "pipe" });
      if (untar.exitCode !== 0) throw new Error(`unpacking ${tarball} failed: ${untar.stderr.toString()}`);
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(dirname(folder), { recursive: true });
      renameSync(unpacked, folder);
      console.log(`fetched ${name}@${version}`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
