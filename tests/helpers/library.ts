/**
 * Builds a library for a test: copies real fixture files into a folder layout under the test
 * server's temp folder, creates the library over HTTP, scans it and waits until the scan has
 * completed and the background thumbnails are done (so book errors are final). The library's
 * folder is `libraryRoot(server, name)`.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { bearer } from "../auth/support/auth";
import { fixture } from "../formats/fixtures";
import type { TestServer } from "./server";

/** Library-relative target path -> fixture path (relative to the shared fixtures folder). */
export type LibraryLayout = Record<string, string>;

export const libraryRoot = (server: TestServer, name: string) => join(server.dir, "libraries", name);

export async function scannedLibrary(server: TestServer, adminToken: string, name: string, layout: LibraryLayout): Promise<string> {
  const root = libraryRoot(server, name);
  for (const [target, source] of Object.entries(layout)) {
    mkdirSync(dirname(join(root, target)), { recursive: true });
    copyFileSync(fixture(source), join(root, target));
  }
  const created = await server.json("POST", "/api/v1/libraries", { name, path: root }, bearer(adminToken));
  if (created.status !== 201) throw new Error(`creating library ${name} failed: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  await scanToCompletion(server, adminToken, id);
  return id;
}

/** Scans the library and waits for the scan and the background thumbnails to finish. */
export async function scanToCompletion(server: TestServer, adminToken: string, libraryId: string): Promise<void> {
  const scan = await server.json("POST", `/api/v1/libraries/${libraryId}/scan`, undefined, bearer(adminToken));
  if (scan.status !== 202) throw new Error(`scan of ${libraryId} refused: ${scan.status} ${JSON.stringify(scan.body)}`);
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(50)) {
    const { body } = await server.json("GET", `/api/v1/libraries/${libraryId}/scan-status`, undefined, bearer(adminToken));
    if (body.scanId === scan.body.scanId && body.status === "completed") {
      await server.server.services.thumbnails.idle();
      return;
    }
    if (body.status === "failed" || body.status === "cancelled") throw new Error(`scan of ${libraryId} ${body.status}: ${body.failureReason}`);
  }
  throw new Error(`scan of ${libraryId} did not finish in 30 s`);
}
