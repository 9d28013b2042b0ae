/** Removal of files that nothing in the catalogue references (thumbnails, uploaded covers). */
import type { FileStore } from "../storage/file-store";

export interface Removal {
  removed: number;
  freedBytes: number;
}

/**
 * Deletes every file of `store` whose key is not in `referenced`. Files ending in .tmp are
 * being written right now (local folders) and are left alone.
 */
export async function removeUnreferencedFiles(store: FileStore, referenced: ReadonlySet<string>): Promise<Removal> {
  const result: Removal = { removed: 0, freedBytes: 0 };
  for await (const file of store.list()) {
    if (file.key.endsWith(".tmp") || referenced.has(file.key)) continue;
    await store.remove(file.key);
    result.freedBytes += file.size;
    result.removed++;
  }
  return result;
}
