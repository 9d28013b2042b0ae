/**
 * Where generated files live: thumbnails, uploaded covers and the page cache. One interface,
 * two kinds: a folder on this machine (files.storage: local, the default) and a bucket of an
 * S3-compatible object storage (files.storage: s3), so instances on several machines share
 * their files without a shared file system. Keys are relative paths with `/` separators
 * (`ab/abcdef….webp`); each store is one area (a folder, or a key prefix in the bucket).
 */
import type { BunFile } from "bun";

/** What is known of a stored file without reading it. */
export interface StoredFileInfo {
  size: number;
  modifiedAt: Date;
  /** A strong validator of this version of the file (an HTTP ETag value without quotes). */
  version: string;
}

export interface ListedFile {
  key: string;
  size: number;
  modifiedAt: Date;
}

export interface FileStore {
  /** Where the files are, for logs and errors (never a credential). */
  readonly location: string;
  /**
   * True when other instances write to the same store (a bucket): a key this process has not
   * seen may still exist. A local folder is taken as this process's own.
   */
  readonly shared: boolean;
  /** Stores the whole file or nothing: a reader never sees it half-written. */
  write(key: string, bytes: Uint8Array, mediaType: string): Promise<void>;
  /** The file's bytes, or undefined when there is no such file. */
  read(key: string): Promise<Uint8Array | undefined>;
  info(key: string): Promise<StoredFileInfo | undefined>;
  /**
   * The file as a response body. A local file is a lazy handle the server sends with sendfile
   * (nothing is read here); an object is fetched when the body is asked for, and one that
   * disappeared since `info` rejects with a NotFound DomainError.
   */
  body(key: string): BunFile | Promise<Uint8Array>;
  /** Removes the file; a file that is not there is not an error. */
  remove(key: string): Promise<void>;
  /** Records a use of the file (its modification time on disk; objects cannot be touched). */
  touch(key: string): Promise<void>;
  /** Every file whose key starts with `prefix` (all of them when empty), in no given order. */
  list(prefix?: string): AsyncIterable<ListedFile>;
}

/** A validator from the size and modification time: what the server sent before object storage existed. */
export function sizeAndTimeVersion(size: number, modifiedAt: Date): string {
  return `${size.toString(36)}-${Math.trunc(modifiedAt.getTime()).toString(36)}`;
}
