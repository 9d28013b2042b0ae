/**
 * Backups (`longbox backup`, the scheduled backup: src/jobs/scheduled-backup.ts): one file,
 * `longbox-backup-<UTC time>.tar.gz`, holding
 *   manifest.json    the format, the Longbox version, the database kind and schema version,
 *                    and the dump's size and SHA-256, so a restore can check it first;
 *   database.sqlite  (VACUUM INTO) or database.pgdump (pg_dump): src/db/dumps.ts;
 *   covers/...       every uploaded cover, read through the covers store, local or S3 alike,
 *                    so the backup alone is enough when the bucket is lost too.
 * Thumbnails and the page and archive caches are not kept: they are made again. The file is
 * written with mode 0600 (it holds password hashes) beside its final name and renamed there
 * once complete, so a backup folder never shows a half-written backup.
 */
import { createReadStream } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { create as createTar } from "tar";
import { Type as T, type Static } from "@sinclair/typebox";
import type { DatabaseDumps } from "../db/dumps";
import type { Logger } from "../logging/logger";
import type { FileStore } from "../storage/file-store";
import { VERSION } from "../version";

export const BACKUP_FORMAT = "longbox-backup";
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_NAME = "manifest.json";
export const COVERS_FOLDER = "covers";
const BACKUP_NAME = /^longbox-backup-[0-9TZ-]+\.tar\.gz$/;
/** What a backup in progress keeps in the folder: its staging folder and the archive being written. */
const STAGING_PREFIX = ".staging-";
const PARTIAL_SUFFIX = ".partial";

/** What manifest.json holds; a restore checks a manifest against it before reading anything else. */
export const BackupManifestSchema = T.Object({
  format: T.Literal(BACKUP_FORMAT),
  formatVersion: T.Integer(),
  longboxVersion: T.String(),
  createdAt: T.String(),
  database: T.Object({
    kind: T.Union([T.Literal("sqlite"), T.Literal("postgres")]),
    schemaVersion: T.Integer({ minimum: 0 }),
    file: T.String(),
    bytes: T.Integer({ minimum: 0 }),
    sha256: T.String(),
  }),
  covers: T.Object({ count: T.Integer({ minimum: 0 }), bytes: T.Integer({ minimum: 0 }) }),
});

export type BackupManifest = Static<typeof BackupManifestSchema>;

export interface BackupFile {
  path: string;
  bytes: number;
  createdAt: Date;
}

export interface BackupSettings {
  /** backup.dir, resolved. */
  dir: string;
  /** backup.keep */
  keep: number;
}

export class BackupService {
  constructor(
    private readonly settings: BackupSettings,
    private readonly dumps: DatabaseDumps,
    private readonly covers: FileStore,
    private readonly log: Logger,
  ) {}

  /** Writes a backup into `dir` (backup.dir by default) while the server may be running. */
  async create(dir = this.settings.dir): Promise<BackupFile> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const createdAt = new Date();
    const path = join(dir, `longbox-backup-${createdAt.toISOString().replace(/[:.]/g, "-")}.tar.gz`);
    const partial = join(dir, `.${Date.now()}-${crypto.randomUUID().slice(0, 8)}${PARTIAL_SUFFIX}`);
    const staging = await mkdtemp(join(dir, STAGING_PREFIX));
    try {
      const databaseFile = join(staging, this.dumps.fileName);
      const { schemaVersion } = await this.dumps.dump(databaseFile);
      const covers = await this.copyCovers(join(staging, COVERS_FOLDER));
      const manifest: BackupManifest = {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_FORMAT_VERSION,
        longboxVersion: VERSION,
        createdAt: createdAt.toISOString(),
        database: { kind: this.dumps.kind, schemaVersion, file: this.dumps.fileName, bytes: (await stat(databaseFile)).size, sha256: await sha256Of(databaseFile) },
        covers,
      };
      await writeFile(join(staging, MANIFEST_NAME), JSON.stringify(manifest, null, 2), { mode: 0o600 });
      // Created empty first so that tar writes into a file that has only ever had mode 0600.
      await writeFile(partial, "", { mode: 0o600, flag: "wx" });
      // The manifest first: a restore reads it before anything else. tar compresses each read
      // synchronously: reads of 1 MB (instead of 16) keep each pause of the server thread short.
      await createTar({ file: partial, gzip: true, cwd: staging, portable: true, maxReadSize: 1 << 20 }, [MANIFEST_NAME, this.dumps.fileName, COVERS_FOLDER]);
      await chmod(partial, 0o600);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    return { path, bytes: (await stat(path)).size, createdAt };
  }

  /**
   * A backup into backup.dir, then the oldest there beyond backup.keep removed, and what
   * backups cut short (a crash, a full disk) left there more than a day ago.
   */
  async createScheduled(): Promise<BackupFile> {
    const made = await this.create();
    for (const old of (await this.list()).slice(this.settings.keep)) {
      await rm(old.path, { force: true });
      this.log.info("old backup removed", { file: old.path, keep: this.settings.keep });
    }
    await this.removeLeftovers();
    return made;
  }

  /** The backups in backup.dir, newest first. */
  async list(): Promise<BackupFile[]> {
    let names: string[];
    try {
      names = await readdir(this.settings.dir);
    } catch {
      return []; // no backup made yet
    }
    const files: BackupFile[] = [];
    // The names hold the UTC time, so they sort by age.
    for (const name of names.filter((candidate) => BACKUP_NAME.test(candidate)).sort().reverse()) {
      const path = join(this.settings.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) files.push({ path, bytes: info.size, createdAt: info.mtime });
    }
    return files;
  }

  /** The newest backup in backup.dir (the admin server page), if any. */
  async last(): Promise<BackupFile | undefined> {
    return (await this.list())[0];
  }

  private async removeLeftovers(): Promise<void> {
    const dayAgo = Date.now() - 86_400_000;
    for (const name of await readdir(this.settings.dir)) {
      if (!name.startsWith(STAGING_PREFIX) && !name.endsWith(PARTIAL_SUFFIX)) continue;
      const path = join(this.settings.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs < dayAgo) await rm(path, { recursive: true, force: true });
    }
  }

  private async copyCovers(folder: string): Promise<BackupManifest["covers"]> {
    await mkdir(folder, { recursive: true });
    let count = 0;
    let bytes = 0;
    for await (const file of this.covers.list()) {
      // A local store's write in progress (renamed into place once complete).
      if (file.key.endsWith(".tmp")) continue;
      const content = await this.covers.read(file.key);
      if (!content) continue; // removed meanwhile
      const target = join(folder, file.key);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content, { mode: 0o600 });
      count++;
      bytes += content.length;
    }
    return { count, bytes };
  }
}

export async function sha256Of(file: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of createReadStream(file)) hasher.update(chunk as Buffer);
  return hasher.digest("hex");
}
