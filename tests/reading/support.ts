/**
 * A scanned library for the reading tests: real fixtures copied into a temp folder (inside the
 * test server's own folder, removed with it), an admin and a plain reader, and the catalogued
 * books by file name.
 */
import { expect } from "bun:test";
import { basename } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { libraryRoot, type LibraryLayout, scan as scanLibrary, scannedLibrary as scannedFixtureLibrary } from "../helpers/library";
import type { TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

export { bearer };

export interface ScannedLibrary {
  adminToken: string;
  readerToken: string;
  readerId: string;
  libraryId: string;
  root: string;
  /** Catalogued books by their file's base name. */
  books: Record<string, { id: string; seriesId: string; pageCount: number; fileHash: string; fileSize: number; title: string }>;
}

/** An admin, a plain reader, and a library of these fixtures, scanned. */
export async function scannedLibrary(server: TestServer, layout: LibraryLayout): Promise<ScannedLibrary> {
  const adminToken = (await adminSession(server)).token;
  const readerId = await createUser(server, adminToken, "reader");
  const readerToken = (await login(server, "reader")).token;
  const libraryId = await scannedFixtureLibrary(server, adminToken, "Reading", layout);
  const root = libraryRoot(server, "Reading");
  const list = await server.json("GET", `/api/v1/books?libraryId=${libraryId}&pageSize=500`, undefined, bearer(adminToken));
  const books: ScannedLibrary["books"] = {};
  for (const book of list.body.data) books[basename(book.filePath)] = book;
  return { adminToken, readerToken, readerId, libraryId, root, books };
}

/** Runs a scan to completion. */
export async function scan(server: TestServer, token: string, libraryId: string, mode: "normal" | "deep" = "normal"): Promise<void> {
  const status = await scanLibrary(server, bearer(token), libraryId, mode);
  expect(status.status).toBe("completed");
}

/**
 * Hides a series from a user with a deny grant, written straight into the tables (the sharing
 * tag endpoints are another slice's).
 */
export async function hideSeriesFrom(server: TestServer, userId: string, seriesId: string): Promise<void> {
  const tagId = crypto.randomUUID();
  const now = new Date();
  await rawQuery(server, "INSERT INTO sharing_tags (id, name, description, created_at, updated_at) VALUES ($1, $2, NULL, $3, $3)", tagId, `hidden-${tagId}`, now);
  await rawQuery(server, "INSERT INTO series_sharing_tags (series_id, sharing_tag_id) VALUES ($1, $2)", seriesId, tagId);
  await rawQuery(server, "INSERT INTO user_sharing_grants (user_id, sharing_tag_id, access_mode) VALUES ($1, $2, 'deny')", userId, tagId);
}


/** Fetches with a token and returns the raw response. */
export function fetchAs(server: TestServer, token: string | undefined, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  return server.fetch(path, { ...init, headers });
}
