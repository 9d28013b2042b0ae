/**
 * Builds the single executable (build.ts) into a temporary folder and sets it up the way a
 * user would run it: the binary ALONE in an otherwise empty folder, a minimal environment
 * (PATH, plus HOME and TMPDIR inside the temporary folder) and a working directory of its own.
 * Nothing of the project (node_modules, sources, migrations) is reachable from there.
 * Used by tests/binary and the benchmarks in bench/.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PROJECT_ROOT = join(import.meta.dir, "..");

export interface IsolatedBinary {
  /** The executable, alone in its folder. */
  path: string;
  /** An empty folder to run it from (its ./config/config.yaml does not exist). */
  workDir: string;
  /** A fresh folder under the temporary folder, for data and configuration files. */
  scratch(name: string): string;
  /** The complete environment to run it with. */
  env: Record<string, string>;
  /** The `.sha256` line build.ts wrote beside a release target's binary (undefined for the host build). */
  checksum?: string;
  remove(): void;
}

/** `target`: a release target of build.ts (`--target`); the host platform when left out. */
export async function buildIsolatedBinary(options: { target?: string } = {}): Promise<IsolatedBinary> {
  const root = mkdtempSync(join(tmpdir(), "longbox-binary-"));
  try {
    const built = join(root, "build", "longbox");
    const targetArgs = options.target ? ["--target", options.target] : [];
    const build = Bun.spawn([process.execPath, "build.ts", ...targetArgs, "--outfile", built], { cwd: PROJECT_ROOT, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
    if (code !== 0) throw new Error(`bun build.ts failed (exit ${code}):\n${stdout}${stderr}`);

    const path = join(root, "bin", "longbox");
    mkdirSync(join(root, "bin"));
    copyFileSync(built, path);
    chmodSync(path, 0o755);
    const checksum = existsSync(`${built}.sha256`) ? readFileSync(`${built}.sha256`, "utf8") : undefined;
    rmSync(join(root, "build"), { recursive: true });
    for (const folder of ["home", "tmp", "work"]) mkdirSync(join(root, folder));
    let scratchCount = 0;
    return {
      path,
      workDir: join(root, "work"),
      scratch(name) {
        const folder = join(root, `${name}-${++scratchCount}`);
        mkdirSync(folder);
        return folder;
      },
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: join(root, "home"), TMPDIR: join(root, "tmp") },
      checksum,
      remove: () => rmSync(root, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
