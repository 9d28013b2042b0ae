/**
 * Step one of a scan: what is on disk. Walks a library folder and returns every file with a
 * known book extension, with size and modification time. Symbolic links are followed only
 * while they lead to a place inside the library's canonical folder (./confinement.ts): a link
 * leading out is reported and never followed. A folder already visited (a link loop) is
 * reported and skipped; unreadable folders and files are reported, never fatal. Nothing here
 * opens a book.
 */
import { opendir, stat } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { resolveWithin } from "./confinement";

export interface DiscoveredFile {
  path: string;
  size: number;
  modifiedAt: number;
}

export interface WalkProblem {
  path: string;
  message: string;
}

export interface WalkResult {
  /** The library folder as it really is (symbolic links resolved). */
  root: string;
  files: DiscoveredFile[];
  /** Folders and files that could not be read: what they hold is unknown, not gone. */
  problems: WalkProblem[];
  /** Symbolic links whose target lies outside the library: not followed. */
  linksOutside: WalkProblem[];
}

const IGNORED_NAMES = new Set(["__MACOSX", "@eaDir", "#recycle", ".Trash-1000", "$RECYCLE.BIN"]);

/**
 * `scope`: walk only these paths inside the library (folders, walked recursively, or single
 * files) instead of the whole tree; a path that no longer exists holds nothing.
 */
export async function walkLibrary(
  root: string,
  extensions: ReadonlySet<string>,
  signal?: AbortSignal,
  scope?: readonly string[],
): Promise<WalkResult> {
  const files: DiscoveredFile[] = [];
  const problems: WalkProblem[] = [];
  const linksOutside: WalkProblem[] = [];
  const visited = new Set<string>();
  const rootResolution = await resolveWithin("/", root);
  if (rootResolution.kind === "unresolvable") {
    return { root, files, problems: [{ path: root, message: `cannot resolve folder: ${describe(rootResolution.error)}` }], linksOutside };
  }
  const canonicalRoot = rootResolution.path;

  const visit = async (folder: string): Promise<void> => {
    signal?.throwIfAborted();
    const resolution = await resolveWithin(canonicalRoot, folder);
    if (resolution.kind === "unresolvable") {
      problems.push({ path: folder, message: `cannot resolve folder: ${describe(resolution.error)}` });
      return;
    }
    if (resolution.kind === "outside") {
      linksOutside.push({ path: folder, message: `symbolic link to ${resolution.path}, outside the library: not followed` });
      return;
    }
    if (visited.has(resolution.path)) {
      problems.push({ path: folder, message: "symbolic link loop: folder already visited" });
      return;
    }
    visited.add(resolution.path);
    const subfolders: string[] = [];
    try {
      // Reading can fail after opening succeeded (EACCES from scandir on special folders).
      for await (const entry of await opendir(folder)) {
        if (entry.name.startsWith(".") || IGNORED_NAMES.has(entry.name)) continue;
        const path = join(folder, entry.name);
        let isDirectory = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          const target = await resolveWithin(canonicalRoot, path);
          if (target.kind === "unresolvable") {
            problems.push({ path, message: "broken symbolic link" });
            continue;
          }
          if (target.kind === "outside") {
            linksOutside.push({ path, message: `symbolic link to ${target.path}, outside the library: not followed` });
            continue;
          }
          try {
            const info = await stat(target.path);
            isDirectory = info.isDirectory();
            isFile = info.isFile();
          } catch (error) {
            problems.push({ path, message: `cannot read link target: ${describe(error)}` });
            continue;
          }
        }
        if (isDirectory) subfolders.push(path);
        else if (isFile && extensions.has(extname(entry.name).slice(1).toLowerCase())) {
          try {
            const info = await stat(path);
            files.push({ path, size: info.size, modifiedAt: Math.trunc(info.mtimeMs) });
          } catch (error) {
            problems.push({ path, message: `cannot read file: ${describe(error)}` });
          }
        }
      }
    } catch (error) {
      problems.push({ path: folder, message: `cannot read folder: ${describe(error)}` });
      return;
    }
    for (const subfolder of subfolders) await visit(subfolder);
  };

  if (!scope) await visit(root);
  for (const path of scope ?? []) {
    if (isIgnoredPath(root, path)) continue;
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // removed: holds nothing
      problems.push({ path, message: `cannot read: ${describe(error)}` });
      continue;
    }
    if (info.isDirectory()) await visit(path);
    else if (info.isFile() && extensions.has(extname(path).slice(1).toLowerCase())) {
      const resolution = await resolveWithin(canonicalRoot, path);
      if (resolution.kind === "inside") files.push({ path, size: info.size, modifiedAt: Math.trunc(info.mtimeMs) });
    }
  }
  return { root: canonicalRoot, files, problems, linksOutside };
}

/** A path the full walk skips: hidden or ignored itself, or under such a folder. */
export function isIgnoredPath(root: string, path: string): boolean {
  return relative(root, path)
    .split(sep)
    .some((name) => name.startsWith(".") || IGNORED_NAMES.has(name));
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
