/**
 * Where generated files live: thumbnails, uploaded covers and the page cache. One interface,
 * two kinds: a folder on this machine (files.storage: local, the default) and a bucket of an
 * S3-compatible object storage (files.storage: s3), so instances on several machines share
 * their files without a shared file system. Keys are relative paths with `/` separators
 * (`ab/abcdef….webp`); each store is one area (a folder, or a key prefix in the bucket).
 */
import type { BunFile } from "bun";

export interface ListedFile {
  key: string;
  size: number;
  modifiedAt: Date;
}

export interface FileStore {
  /**
   * True when other instances write to the same store (a bucket): a key this process has not
   * seen may still exist. A local folder is taken as this process's own.
   */
  readonly shared: boolean;
  /** Stores the whole file or nothing: a reader never sees it half-written. */
  write(key: string, bytes: Uint8Array, mediaType: string): Promise<void>;
  /** The file's bytes, or undefined when there is no such file. */
  read(key: string): Promise<Uint8Array | undefined>;
  /**
   * A strong validator of the file's current version (an HTTP ETag value without quotes),
   * looked up without reading the file; undefined when there is no such file.
   */
  version(key: string): Promise<string | undefined>;
  /**
   * The file as a response body. A local file is a lazy handle the server sends with sendfile
   * (nothing is read here); an object is fetched when the body is asked for, and one that
   * disappeared since `version` rejects with a NotFound DomainError.
   */
  body(key: string): BunFile | Promise<Uint8Array>;
  /** Removes the file; a file that is not there is not an error. */
  remove(key: string): Promise<void>;
  /** Records a use of the file (its modification time on disk; objects cannot be touched). */
  touch(key: string): Promise<void>;
  /** Every file whose key starts with `prefix` (all of them when empty), in no given order. */
  list(prefix?: string): AsyncIterable<ListedFile>;
}
