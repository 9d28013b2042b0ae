/**
 * The folder picker behind the admin's "new library" form: the sub-folders of a folder on the
 * server, so an admin can find a library path without typing it. Only folder names are shown
 * (never files), hidden folders are left out, the path is resolved (symbolic links followed)
 * before listing, and unreadable folders answer 422 like a library path that cannot be read.
 */
import { readdir, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { invalidFields } from "../errors";
import { compareNatural } from "../formats/archive-pages";

export interface FolderListing {
  path: string;
  parent: string | null;
  folders: { name: string; path: string }[];
  truncated: boolean;
}

/** More would not help a person choose; the listing says when it was cut. */
const MAX_FOLDERS = 500;

export class FolderBrowser {
  async list(path: string): Promise<FolderListing> {
    if (!isAbsolute(path)) throw invalidFields("UnprocessableEntity", { path: "must be an absolute path" });
    let resolved: string;
    let entries;
    try {
      resolved = await realpath(path);
      entries = await readdir(resolved, { withFileTypes: true });
    } catch {
      throw invalidFields("UnprocessableEntity", { path: "is not a readable folder" });
    }
    const names = entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort(compareNatural);
    const parent = dirname(resolved);
    return {
      path: resolved,
      parent: parent === resolved ? null : parent,
      folders: names.slice(0, MAX_FOLDERS).map((name) => ({ name, path: join(resolved, name) })),
      truncated: names.length > MAX_FOLDERS,
    };
  }
}
