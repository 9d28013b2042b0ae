/** Removal of files that nothing in the catalogue references (thumbnails, uploaded covers). */
import { readdir, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";

export interface Removal {
  removed: number;
  freedBytes: number;
}

/**
 * Deletes every file under `root` whose path relative to `root` is not in `referenced`.
 * Files ending in .tmp are being written right now and are left alone.
 */
export async function removeUnreferencedFiles(root: string, referenced: ReadonlySet<string>): Promise<Removal> {
  const result: Removal = { removed: 0, freedBytes: 0 };
  const visit = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return; // not created yet: nothing to clean
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (entry.name.endsWith(".tmp") || referenced.has(relative(root, path))) continue;
      else {
        result.freedBytes += (await stat(path)).size;
        await rm(path, { force: true });
        result.removed++;
      }
    }
  };
  await visit(root);
  return result;
}
