/**
 * Files in a folder of this machine (files.storage: local): what Longbox always did. Writes go
 * to `<file>.tmp` and are renamed into place, so a reader sees the old file or the new one;
 * serving hands Bun a lazy file handle, which it sends with sendfile.
 */
import type { BunFile } from "bun";
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { FileStore, ListedFile } from "./file-store";

export class LocalFolderStore implements FileStore {
  readonly shared = false;

  constructor(private readonly root: string) {}

  async write(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.pathOf(key);
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(`${file}.tmp`, bytes);
      await rename(`${file}.tmp`, file);
    } catch (error) {
      await rm(`${file}.tmp`, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    try {
      return await Bun.file(this.pathOf(key)).bytes();
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async version(key: string): Promise<string | undefined> {
    try {
      const { size, mtime } = await stat(this.pathOf(key));
      // Size and modification time: the same ETags as before stores existed.
      return `${size.toString(36)}-${Math.trunc(mtime.getTime()).toString(36)}`;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  body(key: string): BunFile {
    return Bun.file(this.pathOf(key));
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async touch(key: string): Promise<void> {
    const now = new Date();
    await utimes(this.pathOf(key), now, now);
  }

  async *list(prefix = ""): AsyncIterable<ListedFile> {
    for await (const file of this.walk(this.root)) if (file.key.startsWith(prefix)) yield file;
  }

  private async *walk(folder: string): AsyncIterable<ListedFile> {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return; // not created yet: nothing stored
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        yield* this.walk(path);
        continue;
      }
      try {
        const { size, mtime } = await stat(path);
        yield { key: relative(this.root, path), size, modifiedAt: mtime };
      } catch {
        // Removed meanwhile (a .tmp renamed into place): not there any more.
      }
    }
  }

  private pathOf(key: string): string {
    return join(this.root, key);
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
