/** Files on disk, as the tests compare them. */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file under `folder` (at any depth), relative to it, sorted. A missing folder throws. */
export function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}
