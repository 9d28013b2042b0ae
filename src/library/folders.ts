/**
 * The folder picker behind the admin's "new library" form: the sub-folders of a folder on the
 * server, so an admin can find a library path without typing it. Only folder names are shown
 * (never files), hidden folders are left out, the path is resolved (symbolic links followed)
 * before listing, and unreadable folders answer 422 like a library path that cannot be read.
 * With no folder given, it offers the places books usually live on a server or NAS; a listed
 * folder says roughly how many books it holds, counted within a fixed budget.
 */
import { readFileSync } from "node:fs";
import { access, constants, opendir, readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, extname, isAbsolute, join } from "node:path";
import { invalidFields } from "../errors";
import { compareNatural } from "../formats/archive-pages";

export interface FolderListing {
  path: string;
  /** The folder's own name: the library name "Use this folder" suggests. */
  name: string;
  parent: string | null;
  folders: { name: string; path: string }[];
  truncated: boolean;
  /** Book files found under the folder; `complete` false when counting stopped at its budget. */
  books: BookCount;
}

export interface BookCount {
  count: number;
  complete: boolean;
}

/** A starting place: a folder that exists and can be read. */
export interface Place {
  name: string;
  path: string;
}

/** More would not help a person choose; the listing says when it was cut. */
const MAX_FOLDERS = 500;
/** Counting books stops at this many, or after this long: enough to tell an empty folder from a library. */
export const COUNT_LIMIT = 1000;
const COUNT_BUDGET_MS = 200;

/** Where books usually are: the usual mount folders of Linux and NAS systems, then the service's home. */
const USUAL_PLACES = ["/mnt", "/media", "/srv", "/data"];
/** File systems that never hold a library (the kernel's own, memory-backed, container layers). */
const SYSTEM_FILE_SYSTEMS = new Set([
  "proc", "sysfs", "devtmpfs", "tmpfs", "devpts", "cgroup", "cgroup2", "mqueue", "overlay", "securityfs", "debugfs", "tracefs",
  "pstore", "bpf", "autofs", "fusectl", "configfs", "hugetlbfs", "nsfs", "binfmt_misc", "squashfs", "efivarfs", "rpc_pipefs", "ramfs",
]);
const SYSTEM_FOLDERS = ["/proc", "/sys", "/dev", "/run", "/boot", "/etc", "/usr", "/var/lib", "/snap"];

/** Mount points listed in a /proc/mounts text that could hold books (octal escapes such as \040 decoded). */
function mountedVolumes(mounts: string): string[] {
  return mounts
    .split("\n")
    .map((line) => line.split(" "))
    .filter(([, mountPoint, type]) => mountPoint !== undefined && type !== undefined && !SYSTEM_FILE_SYSTEMS.has(type))
    .map(([, mountPoint]) => mountPoint!.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((path) => path !== "/" && !SYSTEM_FOLDERS.some((system) => path === system || path.startsWith(`${system}/`)));
}

export class FolderBrowser {
  /** `extensions`: the book extensions the format registry knows (lower case, no dot). */
  constructor(private readonly extensions: ReadonlySet<string>) {}

  /** The starting places that exist and can be read here, each once, in the order above, then the mounted volumes. */
  async places(): Promise<Place[]> {
    let mounts: string[] = [];
    try {
      mounts = mountedVolumes(readFileSync("/proc/mounts", "utf8"));
    } catch {
      // No /proc (not Linux) or unreadable: the usual places alone.
    }
    const places: Place[] = [];
    for (const path of [...USUAL_PLACES, homedir(), ...mounts]) {
      if (places.some((place) => place.path === path)) continue;
      try {
        if (!(await stat(path)).isDirectory()) continue;
        await access(path, constants.R_OK | constants.X_OK);
      } catch {
        continue;
      }
      places.push({ name: basename(path) || path, path });
    }
    return places;
  }

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
      name: basename(resolved) || resolved,
      parent: parent === resolved ? null : parent,
      folders: names.slice(0, MAX_FOLDERS).map((name) => ({ name, path: join(resolved, name) })),
      truncated: names.length > MAX_FOLDERS,
      books: await this.countBooks(resolved),
    };
  }

  /**
   * The book files under `root`, breadth first so a big tree shows its top first, stopping at
   * COUNT_LIMIT files or COUNT_BUDGET_MS. Symbolic links are never followed (the entry types
   * come from the folder itself), so the count stays inside the folder and cannot loop;
   * unreadable folders are passed over.
   */
  private async countBooks(root: string): Promise<BookCount> {
    const deadline = performance.now() + COUNT_BUDGET_MS;
    const folders = [root];
    let count = 0;
    for (let folder = folders.shift(); folder !== undefined; folder = folders.shift()) {
      try {
        for await (const entry of await opendir(folder)) {
          if (count >= COUNT_LIMIT || performance.now() > deadline) return { count, complete: false };
          if (entry.name.startsWith(".")) continue;
          if (entry.isDirectory()) folders.push(join(folder, entry.name));
          else if (entry.isFile() && this.extensions.has(extname(entry.name).slice(1).toLowerCase())) count++;
        }
      } catch {
        // An unreadable sub-folder holds no books the scan could read either.
      }
    }
    return { count, complete: true };
  }
}
