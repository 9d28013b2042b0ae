/**
 * `longbox restore FILE [--force]`: puts a backup (./backups.ts) back. Everything is checked
 * before anything is touched: the file must be a gzip'd tar whose first entry is a Longbox
 * manifest, of the configured database's kind (restoring into the other kind is not
 * supported), of a schema this Longbox knows, with a dump matching its checksum and readable
 * by the database's tools, and nothing else in it. A database in use by a running server is
 * refused unless `force`. The dump is restored aside and swapped in whole (src/db/dumps.ts);
 * then the uploaded covers are written to the covers store and those the backup lacks removed.
 * The next start migrates an older schema as usual; thumbnails are made again as they are asked for.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { extract } from "tar";
import { knownSchemaVersion, type DatabaseDumps } from "../db/dumps";
import { extensionOf, PAGE_IMAGE_TYPES } from "../formats/images";
import type { FileStore } from "../storage/file-store";
import { LocalFolderStore } from "../storage/local-folder";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupManifestSchema, COVERS_FOLDER, MANIFEST_NAME, sha256Of, type BackupManifest } from "./backups";

export interface RestoreTarget {
  dumps: DatabaseDumps;
  covers: FileStore;
  /** A folder on the same file system as the database file, for the restore's staging. */
  stagingParent: string;
}

export interface RestoreReport {
  manifest: BackupManifest;
  /** Why the database looked in use when `force` restored it anyway. */
  forcedPast?: string;
}

const KIND_NAMES: Record<string, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

export async function restoreBackup(archive: string, target: RestoreTarget, { force }: { force: boolean }): Promise<RestoreReport> {
  const info = await stat(archive).catch(() => undefined);
  if (!info?.isFile()) throw new Error(`${archive} is not a file`);
  await mkdir(target.stagingParent, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(join(target.stagingParent, ".longbox-restore-"));
  try {
    const manifest = await unpack(archive, staging, target.dumps);
    const databaseFile = join(staging, target.dumps.fileName);
    await target.dumps.check(databaseFile);
    const inUse = await target.dumps.inUse();
    if (inUse && !force) throw new Error(`${inUse}; stop the server first, or restore with --force to replace the database anyway`);
    await target.dumps.replace(databaseFile, { schemaVersion: manifest.database.schemaVersion, force });
    try {
      await restoreCovers(join(staging, COVERS_FOLDER), target.covers);
    } catch (error) {
      throw new Error(`the database is restored, but the uploaded covers could not all be written (${(error as Error).message}): run the restore again`, { cause: error });
    }
    return { manifest, forcedPast: inUse };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Extracts the archive into `staging` and checks it whole; resolves with its manifest. */
async function unpack(archive: string, staging: string, dumps: DatabaseDumps): Promise<BackupManifest> {
  const notLongbox = `${archive} is not a Longbox backup`;
  const entries: string[] = [];
  const unexpected: string[] = [];
  try {
    await extract({
      file: archive,
      cwd: staging,
      strict: true,
      // Only what a backup holds, and nothing at all from an archive that does not open with a manifest.
      filter: (path, entry) => {
        entries.push(path);
        const type = "type" in entry ? entry.type : "File";
        const expected =
          entries[0] === MANIFEST_NAME &&
          ((type === "File" && (path === MANIFEST_NAME || path === dumps.fileName || path.startsWith(`${COVERS_FOLDER}/`))) ||
            (type === "Directory" && (path === `${COVERS_FOLDER}/` || path.startsWith(`${COVERS_FOLDER}/`))));
        if (!expected) unexpected.push(path);
        return expected;
      },
    });
  } catch (error) {
    throw new Error(`${archive} cannot be read as a Longbox backup (damaged or not a backup): ${(error as Error).message}`, { cause: error });
  }
  if (entries[0] !== MANIFEST_NAME) throw new Error(`${notLongbox} (it does not start with ${MANIFEST_NAME})`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(staging, MANIFEST_NAME), "utf8"));
  } catch (error) {
    throw new Error(`${notLongbox} (its ${MANIFEST_NAME} cannot be read: ${(error as Error).message})`, { cause: error });
  }
  if (manifest?.format !== BACKUP_FORMAT) throw new Error(`${notLongbox} (its manifest is of another format)`);
  if (manifest.formatVersion !== BACKUP_FORMAT_VERSION) {
    throw new Error(`${archive} is a backup of format ${manifest.formatVersion} (Longbox ${manifest.longboxVersion}); this Longbox reads format ${BACKUP_FORMAT_VERSION}`);
  }
  const flaw = Value.Errors(BackupManifestSchema, manifest).First();
  if (flaw) throw new Error(`${archive} is damaged: its manifest is incomplete (${flaw.path || "/"} ${flaw.message})`);
  const { database } = manifest;
  if (database.kind !== dumps.kind) {
    throw new Error(
      `${archive} holds a ${KIND_NAMES[database.kind] ?? database.kind} database but the configuration uses ${KIND_NAMES[dumps.kind]}: ` +
        "restoring into a database of the other kind is not supported",
    );
  }
  if (unexpected.length > 0) throw new Error(`${archive} holds files a Longbox backup does not (${unexpected.slice(0, 3).join(", ")}): refused`);
  const known = knownSchemaVersion(dumps.kind === "sqlite" ? "sqlite" : "pg");
  if (database.schemaVersion > known) {
    throw new Error(`${archive} was made by Longbox ${manifest.longboxVersion} (schema version ${database.schemaVersion}); this Longbox knows schema version ${known}: upgrade it first`);
  }
  const databaseFile = join(staging, dumps.fileName);
  const found = database.file === dumps.fileName ? await stat(databaseFile).catch(() => undefined) : undefined;
  if (!found) throw new Error(`${archive} is damaged: its database dump ${dumps.fileName} is missing`);
  if (found.size !== database.bytes || (await sha256Of(databaseFile)) !== database.sha256) {
    throw new Error(`${archive} is damaged: its database dump does not match the checksum in its manifest`);
  }
  const covers = entries.filter((path) => path.startsWith(`${COVERS_FOLDER}/`) && !path.endsWith("/")).length;
  if (covers !== manifest.covers.count) throw new Error(`${archive} is damaged: it holds ${covers} covers, its manifest says ${manifest.covers.count}`);
  await chmod(databaseFile, 0o600);
  return manifest;
}

/** Writes every cover of the backup to the store, then removes those the backup does not have. */
async function restoreCovers(folder: string, store: FileStore): Promise<void> {
  const keep = new Set<string>();
  const staged = new LocalFolderStore(folder);
  for await (const file of staged.list()) {
    const content = await staged.read(file.key);
    if (!content) continue;
    await store.write(file.key, content, PAGE_IMAGE_TYPES[extensionOf(file.key)] ?? "application/octet-stream");
    keep.add(file.key);
  }
  const stale: string[] = [];
  for await (const file of store.list()) if (!keep.has(file.key)) stale.push(file.key);
  for (const key of stale) await store.remove(key);
}
