/**
 * Disks of a test's own that it can fill up or make read-only (the test needs root): a small
 * tmpfs on a temp folder, a read-only bind mount, and a file that takes all the space left.
 * Call unmountDisks in the test file's afterAll.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { tempFolder } from "./library";

const mounts: string[] = [];

/** Runs a command that needs root (mount, umount); throws with its error output if it fails. */
export function asRoot(...command: string[]): void {
  const result = Bun.spawnSync(command);
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")} failed (the test needs root): ${result.stderr}`);
}

/** A new temp folder with a tmpfs of `megabytes` mounted on it. */
export function smallDisk(megabytes: number, prefix = "longbox-disk-"): string {
  const dir = tempFolder(prefix);
  asRoot("mount", "-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", dir);
  mounts.push(dir);
  return dir;
}

/** Makes the file or folder at `path` read-only (a read-only bind mount of it over itself). */
export function readOnly(path: string): void {
  asRoot("mount", "--bind", path, path);
  mounts.push(path);
  asRoot("mount", "-o", "remount,ro,bind", path);
}

/** Unmounts every disk smallDisk and readOnly mounted, the latest first. */
export function unmountDisks(): void {
  for (const dir of mounts.splice(0).reverse()) Bun.spawnSync(["umount", "-l", dir]);
}

/** Writes the file `filler` until its disk has no space left (ENOSPC); any other error is thrown. */
export function fillDisk(filler: string): void {
  const fd = openSync(filler, "w");
  const block = new Uint8Array(1 << 16);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
}
