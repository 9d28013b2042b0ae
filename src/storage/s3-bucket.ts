/**
 * Files as objects in a bucket of an S3-compatible object storage (files.storage: s3), through
 * Bun's built-in S3 client (SigV4, no SDK). One bucket holds every area under its own key
 * prefix (`<files.s3.prefix>thumbnails/…`). A PUT replaces an object whole, so no temporary
 * key is needed. Every failure other than "no such key" becomes an ObjectStorageError, which
 * the thumbnail queue counts as transient (src/library/transient.ts): the storage being away
 * is never a book's fault.
 */
import type { S3Client } from "bun";
import { DomainError } from "../errors";
import type { FileStore, ListedFile } from "./file-store";

/** Code carried by object storage failures (see transientCause). */
export const OBJECT_STORAGE_FAILURE = "EOBJECTSTORAGE";

export class ObjectStorageError extends Error {
  override name = "ObjectStorageError";
  readonly code = OBJECT_STORAGE_FAILURE;
  constructor(message: string, cause: unknown) {
    super(`${message}: ${describeS3Failure(cause)}`, { cause });
  }
}

const LIST_PAGE = 1000;

export class S3BucketStore implements FileStore {
  readonly shared = true;

  constructor(
    private readonly client: S3Client,
    /** Where this area's keys start: `<files.s3.prefix><area>/`. */
    private readonly prefix: string,
    /** The bucket and endpoint, for messages (never a credential). */
    private readonly location: string,
  ) {}

  async write(key: string, bytes: Uint8Array, mediaType: string): Promise<void> {
    try {
      await this.client.write(this.prefix + key, bytes, { type: mediaType });
    } catch (error) {
      throw new ObjectStorageError(`object ${this.prefix + key} could not be written to ${this.location}`, error);
    }
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    try {
      return await this.client.file(this.prefix + key).bytes();
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw new ObjectStorageError(`object ${this.prefix + key} could not be read from ${this.location}`, error);
    }
  }

  async version(key: string): Promise<string | undefined> {
    try {
      // The object's own ETag changes with its content: a strong validator to hand on.
      return (await this.client.stat(this.prefix + key)).etag.replace(/^(W\/)?"|"$/g, "");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw new ObjectStorageError(`object ${this.prefix + key} could not be looked up in ${this.location}`, error);
    }
  }

  /**
   * Streamed through this server, never a redirect to a presigned URL: the storage need not be
   * reachable by clients, the pages' CSP allows images from 'self' only, and access stays
   * checked here (docs/scaling.md). Thumbnails and covers are small, so the object is read
   * whole first: one that vanished meanwhile (a cleanup) is a clean 404, not a broken response.
   */
  async body(key: string): Promise<Uint8Array> {
    const bytes = await this.read(key);
    if (!bytes) throw new DomainError("NotFound", "the image was removed while it was being sent");
    return bytes;
  }

  async remove(key: string): Promise<void> {
    try {
      await this.client.delete(this.prefix + key);
    } catch (error) {
      if (isMissing(error)) return;
      throw new ObjectStorageError(`object ${this.prefix + key} could not be removed from ${this.location}`, error);
    }
  }

  /** Objects cannot be touched without copying them: the last use is kept in memory only. */
  async touch(): Promise<void> {}

  async *list(prefix = ""): AsyncIterable<ListedFile> {
    let continuationToken: string | undefined;
    do {
      let page;
      try {
        page = await this.client.list({ prefix: this.prefix + prefix, maxKeys: LIST_PAGE, continuationToken });
      } catch (error) {
        throw new ObjectStorageError(`the objects under ${this.prefix + prefix} could not be listed in ${this.location}`, error);
      }
      for (const object of page.contents ?? []) {
        yield {
          key: object.key.slice(this.prefix.length),
          size: object.size ?? 0,
          modifiedAt: new Date(object.lastModified ?? 0),
        };
      }
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "NoSuchKey" || code === "NotFound";
}

/** The storage's error code and message; Bun's S3 errors never carry the credentials. */
export function describeS3Failure(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return [code, message].filter(Boolean).join(": ") || String(error);
}
