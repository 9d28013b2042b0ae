/**
 * Library folders for tests: temp folders filled with real fixture files or with small CBZ
 * books made here (real JPEG pages from sharp, a real ZIP from fflate), and helpers to create
 * a library over HTTP and wait for its scan.
 */
import { expect } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { type ZipOptions, unzipSync, zipSync } from "fflate";
import sharp from "sharp";
import { fixture } from "./fixtures";
import { bearer } from "./auth";
import type { JsonClient, TestServer } from "./server";

export function tempFolder(prefix = "longbox-library-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Copies a fixture (path relative to the fixture corpus) to `destination` (a file path). */
export function placeFixture(relativePath: string, destination: string): string {
  mkdirSync(dirname(destination), { recursive: true });
  copyFileSync(fixture(relativePath), destination);
  return destination;
}

const pageCache = new Map<string, Uint8Array>();

/** A small JPEG whose pixels depend on `seed`, so books made from different seeds differ. */
export async function jpegPage(seed: number, width = 64, height = 96): Promise<Uint8Array> {
  const key = `${seed}:${width}x${height}`;
  const cached = pageCache.get(key);
  if (cached) return cached;
  const colour = { r: (seed * 67) % 256, g: (seed * 131) % 256, b: (seed * 197) % 256 };
  const bytes = new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: colour } }).jpeg({ quality: 70 }).toBuffer(),
  );
  pageCache.set(key, bytes);
  return bytes;
}

export interface CbzOptions {
  pages?: number;
  /** Distinguishes the content (and so the SHA-256) of books with the same page count. */
  seed?: number;
  comicInfo?: string;
  /** ZIP compression level of every entry: 0 (the default) stores them. */
  level?: ZipOptions["level"];
  /** Page entry names start with it (default `page-`): another prefix moves the pages within the file. */
  prefix?: string;
}

/** Writes a real CBZ at `path` and returns the path. */
export async function makeCbz(path: string, options: CbzOptions = {}): Promise<string> {
  const entries: Record<string, Uint8Array> = {};
  const seed = options.seed ?? 1;
  for (let page = 1; page <= (options.pages ?? 3); page++) {
    entries[`${options.prefix ?? "page-"}${String(page).padStart(3, "0")}.jpg`] = await jpegPage(seed * 1000 + page);
  }
  if (options.comicInfo) entries["ComicInfo.xml"] = new TextEncoder().encode(options.comicInfo);
  return writeCbz(path, entries, options.level);
}

/** Writes a CBZ at `path` holding exactly `entries` (stored, unless `level` says otherwise) and returns the path. */
export function writeCbz(path: string, entries: Record<string, Uint8Array>, level: ZipOptions["level"] = 0): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, zipSync(entries, { level }));
  return path;
}

/** A real-world JPEG page (1 or 2) of a fixture book, Captain Science #001. */
export function realJpeg(page: 1 | 2 = 1): Uint8Array {
  const entries = unzipSync(readFileSync(fixture("cbz/comicbox/Captain Science #001.cbz")));
  return entries[`Captain Science 001/CaptainScience#1_0${page}.jpg`]!;
}

/**
 * A temp folder of `books` small CBZ books of `pages` pages each, spread over `series` series:
 * book n is "Series {n % series}/Issue {n}.cbz", made with the seed `seed + n` (so folders of
 * different seeds hold different books).
 */
export async function comicsFolder(books: number, options: { pages: number; seed: number; series: number }): Promise<string> {
  const root = tempFolder();
  for (let index = 1; index <= books; index++) {
    await makeCbz(join(root, `Series ${index % options.series}`, `Issue ${index}.cbz`), { seed: options.seed + index, pages: options.pages });
  }
  return root;
}

export function comicInfo(fields: Record<string, string | number>): string {
  const body = Object.entries(fields)
    .map(([name, value]) => `  <${name}>${String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;")}</${name}>`)
    .join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo>\n${body}\n</ComicInfo>\n`;
}

export async function createLibrary(
  server: JsonClient,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<{ id: string; [key: string]: unknown }> {
  const created = await server.json("POST", "/api/v1/libraries", { name: basename(String(body.path)), ...body }, headers);
  if (created.status !== 201) throw new Error(`creating the library failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

export type ScanStatus = Record<string, any> & { scanId: string; status: string };

/** Starts a scan (202) and waits until that scan is finished; returns its final status. */
export async function scan(
  server: JsonClient,
  headers: Record<string, string>,
  libraryId: string,
  mode?: "normal" | "deep",
  timeoutMs?: number,
): Promise<ScanStatus> {
  const started = await server.json("POST", `/api/v1/libraries/${libraryId}/scan${mode ? `?mode=${mode}` : ""}`, undefined, headers);
  expect(started.status).toBe(202);
  return waitForScan(server, headers, libraryId, started.body.scanId, timeoutMs);
}

export async function waitForScan(
  server: JsonClient,
  headers: Record<string, string>,
  libraryId: string,
  scanId: string,
  timeoutMs = 30_000,
): Promise<ScanStatus> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { body } = await server.json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, headers);
    if (body.scanId === scanId && ["completed", "failed", "cancelled"].includes(body.status)) return body;
    await Bun.sleep(25);
  }
  throw new Error(`scan ${scanId} did not finish within ${timeoutMs} ms`);
}

/** Every present book of a library (or, with deleted=true, the soft-deleted ones). */
export async function booksOf(
  server: JsonClient,
  headers: Record<string, string>,
  libraryId: string,
  deleted = false,
): Promise<Record<string, any>[]> {
  const { status, body } = await server.json("GET", `/api/v1/books?libraryId=${libraryId}&deleted=${deleted}&pageSize=500`, undefined, headers);
  expect(status).toBe(200);
  return body.data;
}

/** The present book of a library whose file path ends with `end` (a file name, the end of a path); throws if none does. */
export async function bookByFile(
  server: JsonClient,
  headers: Record<string, string>,
  libraryId: string,
  end: string,
): Promise<Record<string, any>> {
  const books = await booksOf(server, headers, libraryId);
  const book = books.find((candidate) => candidate.filePath.endsWith(end));
  if (!book) throw new Error(`no book of library ${libraryId} has a file ending with "${end}"; its files: ${books.map((candidate) => candidate.filePath).join(", ")}`);
  return book;
}

/** Library-relative target path -> fixture path (relative to the shared fixtures folder). */
export type LibraryLayout = Record<string, string>;

export const libraryRoot = (server: TestServer, name: string) => join(server.dir, "libraries", name);

/**
 * Copies fixtures into a layout under the test server's temp folder, creates the library, scans
 * it and waits for the background thumbnails too (so book errors are final). Returns its id.
 */
export async function scannedLibrary(server: TestServer, adminToken: string, name: string, layout: LibraryLayout): Promise<string> {
  const root = libraryRoot(server, name);
  mkdirSync(root, { recursive: true });
  for (const [target, source] of Object.entries(layout)) placeFixture(source, join(root, target));
  const library = await createLibrary(server, bearer(adminToken), { name, path: root });
  await scanToCompletion(server, adminToken, library.id);
  return library.id;
}

/** Scans the library to completion, then waits for its thumbnails. */
export async function scanToCompletion(server: TestServer, adminToken: string, libraryId: string): Promise<void> {
  const status = await scan(server, bearer(adminToken), libraryId);
  if (status.status !== "completed") throw new Error(`scan of ${libraryId} ${status.status}: ${status.failureReason}`);
  await server.server.services.thumbnails.idle();
}
