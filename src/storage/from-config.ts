/**
 * The stores of the configuration (files.storage): three folders of this machine, or three
 * key prefixes of one bucket. A bucket is tried at start (an object written, read back and
 * removed), so wrong credentials, a missing bucket or an unreachable endpoint stop the start
 * with the reason instead of failing every thumbnail later.
 */
import type { S3Client } from "bun";
import { ConfigError } from "../config/load";
import type { DataPaths } from "../config/paths";
import type { Config } from "../config/schema";
import type { FileStore } from "./file-store";
import { LocalFolderStore } from "./local-folder";
import { describeS3Failure, S3BucketStore } from "./s3-bucket";

export interface FileStores {
  thumbnails: FileStore;
  covers: FileStore;
  pageCache: FileStore;
  /** For the start-up log line: where the files go (no credentials). */
  description: string;
}

/** How long the start waits for the bucket to answer before giving up. */
const CHECK_TIMEOUT_MS = 15_000;

export async function openFileStores(config: Config, paths: DataPaths): Promise<FileStores> {
  if (config.files.storage === "local") {
    return {
      thumbnails: new LocalFolderStore(paths.thumbnailDir),
      covers: new LocalFolderStore(paths.coverDir),
      pageCache: new LocalFolderStore(paths.pageCacheDir),
      description: `local folders (${paths.thumbnailDir}, ${paths.coverDir}, ${paths.pageCacheDir})`,
    };
  }
  // assertServable (src/server.ts) has refused settings that cannot work (no bucket, no credentials...).
  const s3 = config.files.s3;
  const client = new Bun.S3Client({ bucket: s3.bucket, endpoint: s3.endpoint || undefined, region: s3.region || undefined, ...bucketCredentials(s3) });
  const location = `bucket "${s3.bucket}" at ${s3.endpoint || "AWS S3"}`;
  const prefix = s3.prefix && !s3.prefix.endsWith("/") ? `${s3.prefix}/` : s3.prefix;
  await checkBucket(client, prefix, location);
  return {
    thumbnails: new S3BucketStore(client, `${prefix}thumbnails/`, location),
    covers: new S3BucketStore(client, `${prefix}covers/`, location),
    pageCache: new S3BucketStore(client, `${prefix}page-cache/`, location),
    description: `${location}, keys under "${prefix}"`,
  };
}

/**
 * Refuses (exit 2) the settings of files.storage: s3 that cannot work whatever the storage
 * answers: no bucket, an endpoint that is no http(s) URL, a credential neither configured nor
 * in the environment.
 */
export function rejectUnusableBucket(s3: Config["files"]["s3"]): void {
  if (!s3.bucket) throw new ConfigError("files.s3.bucket is required when files.storage is s3");
  if (s3.endpoint && !/^https?:\/\/[^/]/.test(s3.endpoint)) {
    throw new ConfigError(`files.s3.endpoint must be an http:// or https:// URL, got "${s3.endpoint}"`);
  }
  const { accessKeyId, secretAccessKey } = bucketCredentials(s3);
  if (!accessKeyId) {
    throw new ConfigError("files.s3.access_key_id is required when files.storage is s3 (or S3_ACCESS_KEY_ID or AWS_ACCESS_KEY_ID in the environment)");
  }
  if (!secretAccessKey) {
    throw new ConfigError("files.s3.secret_access_key is required when files.storage is s3 (or S3_SECRET_ACCESS_KEY or AWS_SECRET_ACCESS_KEY in the environment)");
  }
}

/**
 * The configured credentials, else those of the environment, S3_* before AWS_* as Bun's S3
 * client would take them. Looked up here, once, and handed to the client, so that the client
 * uses what rejectUnusableBucket checked: left to itself, Bun reads the variables of the
 * process's start (not process.env as it is now) and lets an empty S3_ACCESS_KEY_ID hide a set
 * AWS_ACCESS_KEY_ID. An empty variable counts as unset here.
 */
function bucketCredentials(s3: Config["files"]["s3"]): { accessKeyId: string; secretAccessKey: string } {
  const env = process.env;
  return {
    accessKeyId: s3.access_key_id || env.S3_ACCESS_KEY_ID || env.AWS_ACCESS_KEY_ID || "",
    secretAccessKey: s3.secret_access_key || env.S3_SECRET_ACCESS_KEY || env.AWS_SECRET_ACCESS_KEY || "",
  };
}

/** Writes, reads back and removes a small object: the rights the service needs, tried once. */
async function checkBucket(client: S3Client, prefix: string, location: string): Promise<void> {
  const key = `${prefix}.longbox-start-check/${crypto.randomUUID()}`;
  const probe = new TextEncoder().encode("longbox start check");
  const attempt = async () => {
    await client.write(key, probe, { type: "text/plain" });
    const back = await client.file(key).bytes();
    await client.delete(key);
    if (back.length !== probe.length) throw new Error("an object read back differs from the one written");
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([attempt(), timeout]);
  } catch (error) {
    throw new Error(
      `the object storage (files.storage: s3) cannot be used: ${location} refused or did not answer ` +
        `(${describeS3Failure(error)}); check files.s3.endpoint, bucket and the credentials`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}
