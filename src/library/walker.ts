/**
 * Step one of a scan: what is on disk. Walks a library folder and returns every file with a
 * known book extension, with size and modification time. Symbolic links are followed, but a
 * folder already visited (a link loop) is reported and skipped; unreadable folders are
 * reported, never fatal. Nothing here opens a book.
 */
import { opendir, realpath, stat } from "node:fs/promises";
import { extname, join } from "node:path";

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
  files: DiscoveredFile[];
  problems: WalkProblem[];
}

const IGNORED_NAMES = new Set(["__MACOSX", "@eaDir", "#recycle", ".Trash-1000", "$RECYCLE.BIN"]);

export async function walkLibrary(root: string, extensions: ReadonlySet<string>, signal?: AbortSignal): Promise<WalkResult> {
  const files: DiscoveredFile[] = [];
  const problems: WalkProblem[] = [];
  const visited = new Set<string>();

  const visit = async (folder: string): Promise<void> => {
    signal?.throwIfAborted();
    let real: string;
    try {
      real = await realpath(folder);
    } catch (error) {
      problems.push({ path: folder, message: `cannot resolve folder: ${(error as Error).message}` });
      return;
    }
    if (visited.has(real)) {
      problems.push({ path: folder, message: "symbolic link loop: folder already visited" });
      return;
    }
    visited.add(real);
    let entries;
    try {
      entries = await opendir(folder);
    } catch (error) {
      problems.push({ path: folder, message: `cannot read folder: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
      return;
    }
    const subfolders: string[] = [];
    for await (const entry of entries) {
      if (entry.name.startsWith(".") || IGNORED_NAMES.has(entry.name)) continue;
      const path = join(folder, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = await stat(path);
          isDirectory = target.isDirectory();
          isFile = target.isFile();
        } catch {
          problems.push({ path, message: "broken symbolic link" });
          continue;
        }
      }
      if (isDirectory) subfolders.push(path);
      else if (isFile && extensions.has(extname(entry.name).slice(1).toLowerCase())) {
        try {
          const info = await stat(path);
          files.push({ path, size: info.size, modifiedAt: Math.trunc(info.mtimeMs) });
        } catch (error) {
          problems.push({ path, message: `cannot read file: ${(error as Error).message}` });
        }
      }
    }
    for (const subfolder of subfolders) await visit(subfolder);
  };

  await visit(root);
  return { files, problems };
}
