import { join, resolve } from "node:path";
import type { Config } from "./schema";

/** Where the service keeps its own data; relative paths are resolved against the working directory. */
export interface DataPaths {
  dataDir: string;
  sqliteFile: string;
  thumbnailDir: string;
  coverDir: string;
  pageCacheDir: string;
  archiveCacheDir: string;
  backupDir: string;
  jwtSecretFile: string;
  encryptionKeyFile: string;
}

export function dataPaths(config: Config): DataPaths {
  const dataDir = resolve(config.application.data_dir);
  const orDefault = (value: string, fallback: string) => (value ? resolve(value) : join(dataDir, fallback));
  return {
    dataDir,
    sqliteFile: orDefault(config.database.sqlite.path, "longbox.db"),
    thumbnailDir: orDefault(config.files.thumbnail_dir, "thumbnails"),
    coverDir: orDefault(config.files.cover_dir, "covers"),
    pageCacheDir: orDefault(config.files.page_cache_dir, "page-cache"),
    archiveCacheDir: orDefault(config.files.archive_cache_dir, "archive-cache"),
    backupDir: orDefault(config.backup.dir, "backups"),
    jwtSecretFile: join(dataDir, "jwt-secret"),
    encryptionKeyFile: join(dataDir, "encryption-key"),
  };
}
