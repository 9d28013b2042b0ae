/**
 * files.storage: s3 against a real S3-compatible server (s3rver, in this process): thumbnails,
 * uploaded covers and cached pages are objects in the bucket, served over HTTP from it; the
 * orphan cleanup removes objects; a second instance on another data folder (same database)
 * serves what the first stored; a bucket that cannot be used stops the start with the reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { TEST_JWT_SECRET } from "../helpers/auth";
import { startServerProcess } from "../../scripts/server-process";
import { PROJECT_ROOT, runLongbox } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS } from "../helpers/databases";
import { sha256 } from "../helpers/digests";
import { writeInstanceConfig } from "../helpers/instances";
import { S3_ACCESS_KEY_ID, startS3Server, type TestS3Server } from "../helpers/s3-server";
import { placeFixture } from "../helpers/library";
import { startSecondInstance, startTestServer, type SecondInstance, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/server-processes";
import { bearer, scan, scannedLibrary, type ScannedLibrary } from "../reading/support";

const LAYOUT = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Captain Science/Captain Science #002.cbz": "cbz/kavita/sorting.zip",
  "Other/Other #001.cbz": "cbz/stump/book-image-format-test.zip",
};

const coverPng = () => sharp({ create: { width: 300, height: 450, channels: 3, background: { r: 20, g: 90, b: 160 } } }).png().toBuffer();

function coverForm(bytes: Uint8Array): FormData {
  const body = new FormData();
  body.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), "cover.png");
  return body;
}

for (const kind of DATABASE_KINDS) {
  describe(`thumbnails, covers and the page cache in S3-compatible object storage [${kind}]`, () => {
    const prefix = `longbox-${kind}/`;
    let s3: TestS3Server;
    let a: TestServer;
    let b: SecondInstance;
    let library: ScannedLibrary;

    beforeAll(async () => {
      s3 = await startS3Server();
      a = await startTestServer(kind, { files: s3.files(prefix), auth: { jwt_secret: TEST_JWT_SECRET } });
      library = await scannedLibrary(a, LAYOUT);
      b = await startSecondInstance(a);
    }, 60_000);
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await s3?.stop();
    });

    const book = (name: string) => library.books[name]!;
    const get = (server: Pick<TestServer, "fetch">, path: string, headers: Record<string, string> = {}) =>
      server.fetch(path, { headers: { ...bearer(library.readerToken), ...headers } });
    const object = async (key: string) => new Uint8Array(await s3.client.file(`${prefix}${key}`).arrayBuffer());

    test("a scan's thumbnails are objects in the bucket, not files in the data folder, and are served from there", async () => {
      const ids = Object.values(library.books).map((entry) => entry.id);
      const expected = ids.map((id) => `${prefix}thumbnails/${id.slice(0, 2)}/${id}.webp`).sort();
      // The queue makes them in the background once the scan is over.
      await waitFor(async () => (await s3.keys(`${prefix}thumbnails/`)).length === expected.length, "the scan's thumbnails", 20_000);
      expect(await s3.keys(`${prefix}thumbnails/`)).toEqual(expected);
      expect(existsSync(join(a.dir, "data", "thumbnails"))).toBe(false);
      // The start names where the files go (the text log escapes the quotes).
      expect(a.logs.some((line) => line.includes(`stored in="bucket \\"${s3.bucket}\\" at ${s3.endpoint}`))).toBe(true);

      const id = book("Captain Science #001.cbz").id;
      const response = await get(a, `/api/v1/books/${id}/thumbnail`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/webp");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(sha256(bytes)).toBe(sha256(await object(`thumbnails/${id.slice(0, 2)}/${id}.webp`)));
      expect((await sharp(bytes).metadata()).format).toBe("webp");
      const etag = response.headers.get("etag")!;
      expect((await get(a, `/api/v1/books/${id}/thumbnail`, { "if-none-match": etag })).status).toBe(304);

      // An object the catalogue names but the bucket lost (a switch from local folders) is made again.
      const key = `${prefix}thumbnails/${id.slice(0, 2)}/${id}.webp`;
      await s3.client.delete(key);
      const again = await get(a, `/api/v1/books/${id}/thumbnail`);
      expect(again.status).toBe(200);
      expect(await s3.client.exists(key)).toBe(true);
      expect(sha256(new Uint8Array(await again.arrayBuffer()))).toBe(sha256(await object(key.slice(prefix.length))));
    });

    test("an uploaded cover is an object: served instead of the thumbnail, removed with the cover", async () => {
      const id = book("Other #001.cbz").id;
      const thumbnail = new Uint8Array(await (await get(a, `/api/v1/books/${id}/thumbnail`)).arrayBuffer());
      const upload = await a.fetch(`/api/v1/books/${id}/cover`, { method: "POST", body: coverForm(await coverPng()), headers: bearer(library.adminToken) });
      expect(upload.status).toBe(204);
      expect(await s3.keys(`${prefix}covers/`)).toEqual([`${prefix}covers/books/${id}.webp`]);
      expect(existsSync(join(a.dir, "data", "covers"))).toBe(false);
      const served = new Uint8Array(await (await get(a, `/api/v1/books/${id}/thumbnail`)).arrayBuffer());
      expect(sha256(served)).toBe(sha256(await object(`covers/books/${id}.webp`)));
      expect(sha256(served)).not.toBe(sha256(thumbnail));

      const removed = await a.fetch(`/api/v1/books/${id}/cover`, { method: "DELETE", headers: bearer(library.adminToken) });
      expect(removed.status).toBe(204);
      expect(await s3.keys(`${prefix}covers/`)).toEqual([]);
      expect(sha256(new Uint8Array(await (await get(a, `/api/v1/books/${id}/thumbnail`)).arrayBuffer()))).toBe(sha256(thumbnail));
    });

    test("a resized page is cached as an object in the bucket", async () => {
      const id = book("Captain Science #002.cbz").id;
      const response = await get(a, `/api/v1/books/${id}/pages/1?width=40`);
      expect(response.status).toBe(200);
      const page = new Uint8Array(await response.arrayBuffer());
      expect((await sharp(page).metadata()).width).toBe(40);
      const cached = await s3.keys(`${prefix}page-cache/`);
      expect(cached).toHaveLength(1);
      expect(sha256(await object(cached[0]!.slice(prefix.length)))).toBe(sha256(page));
      expect(existsSync(join(a.dir, "data", "page-cache"))).toBe(false);
    });

    test("a second instance on another data folder serves the thumbnails, covers and cached pages the first stored", async () => {
      for (const { id } of Object.values(library.books)) {
        const fromA = new Uint8Array(await (await get(a, `/api/v1/books/${id}/thumbnail`)).arrayBuffer());
        const fromB = await get(b, `/api/v1/books/${id}/thumbnail`);
        expect(fromB.status).toBe(200);
        expect(sha256(new Uint8Array(await fromB.arrayBuffer()))).toBe(sha256(fromA));
      }
      // A cover uploaded through B is what A serves.
      const first = book("Captain Science #001.cbz");
      const upload = await b.fetch(`/api/v1/series/${first.seriesId}/cover`, { method: "POST", body: coverForm(await coverPng()), headers: bearer(library.adminToken) });
      expect(upload.status).toBe(204);
      const fromA = await get(a, `/api/v1/series/${first.seriesId}/thumbnail`);
      expect(sha256(new Uint8Array(await fromA.arrayBuffer()))).toBe(sha256(await object(`covers/series/${first.seriesId}.webp`)));

      // B reads its page cache index first (a page of its own), then A caches another page.
      const other = book("Other #001.cbz");
      expect((await get(b, `/api/v1/books/${other.id}/pages/1?width=40`)).status).toBe(200);
      const cachedBook = book("Captain Science #002.cbz");
      const before = await s3.keys(`${prefix}page-cache/`);
      expect((await get(a, `/api/v1/books/${cachedBook.id}/pages/2?width=40`)).status).toBe(200);
      const added = (await s3.keys(`${prefix}page-cache/`)).filter((key) => !before.includes(key));
      expect(added).toHaveLength(1);
      // B serves the page A cached: a stand-in put in its place in the bucket is what B sends.
      const standIn = new Uint8Array(await sharp({ create: { width: 40, height: 40, channels: 3, background: "red" } }).png().toBuffer());
      await s3.client.write(added[0]!, standIn);
      // What B asks the bucket's page cache for, once it has read its index.
      const pageCacheRequests = () => s3.requests.filter((request) => request.includes(`${prefix}page-cache/`));
      s3.requests.length = 0;
      const page = await get(b, `/api/v1/books/${cachedBook.id}/pages/2?width=40`);
      expect(page.status).toBe(200);
      expect(sha256(new Uint8Array(await page.arrayBuffer()))).toBe(sha256(standIn));
      // Found by its name alone: one GET, no listing.
      expect(pageCacheRequests()).toEqual([`GET /${s3.bucket}/${added[0]}`]);
      s3.requests.length = 0;
      // A width nobody cached: one GET of the page's name (a 404) and no listing, then B renders
      // the page and puts it in the bucket under that name.
      expect((await get(b, `/api/v1/books/${cachedBook.id}/pages/1?width=30`)).status).toBe(200);
      const [miss, put, ...rest] = pageCacheRequests();
      expect(miss).toStartWith(`GET /${s3.bucket}/${prefix}page-cache/`);
      expect(put).toBe(miss!.replace("GET", "PUT"));
      expect(rest).toEqual([]);
      for (const folder of ["thumbnails", "covers", "page-cache"]) expect(existsSync(join(b.dataDir, folder))).toBe(false);
    });

    test("the cleanup removes the objects of a book deleted for good and stray objects, and keeps the rest", async () => {
      const doomed = book("Captain Science #002.cbz");
      const keptIds = Object.values(library.books).filter((entry) => entry.id !== doomed.id).map((entry) => entry.id);
      const stray = `${prefix}thumbnails/zz/left-behind.webp`;
      await s3.client.write(stray, new Uint8Array([1, 2, 3]));
      rmSync(join(library.root, "Captain Science", "Captain Science #002.cbz"));
      await scan(a, library.adminToken, library.libraryId);
      expect((await a.fetch(`/api/v1/books/${doomed.id}`, { method: "DELETE", headers: bearer(library.adminToken) })).status).toBe(204);

      const cleanup = await b.fetch("/api/v1/maintenance/cleanup-thumbnails", { method: "POST", headers: bearer(library.adminToken) });
      expect(cleanup.status).toBe(200);
      const removal = await cleanup.json();
      expect(removal.removed).toBe(2);
      expect(removal.freedBytes).toBeGreaterThan(3);
      expect(await s3.keys(`${prefix}thumbnails/`)).toEqual(keptIds.map((id) => `${prefix}thumbnails/${id.slice(0, 2)}/${id}.webp`).sort());
      // The series cover in use survives.
      expect(await s3.keys(`${prefix}covers/`)).toEqual([`${prefix}covers/series/${book("Captain Science #001.cbz").seriesId}.webp`]);
    });

    test("with the bucket gone: thumbnails answer 503, a new book's thumbnail is no book error, resized pages are still served", async () => {
      await s3.stop();
      const existing = await get(a, `/api/v1/books/${book("Captain Science #001.cbz").id}/thumbnail`);
      expect(existing.status).toBe(503);
      expect(existing.headers.get("retry-after")).toBe("5");
      expect((await existing.json()).error).toBe("ServiceUnavailable");
      // Rendered, served, not cached (the write fails quietly).
      const page = await get(a, `/api/v1/books/${book("Other #001.cbz").id}/pages/1?width=36`);
      expect(page.status).toBe(200);
      expect((await sharp(new Uint8Array(await page.arrayBuffer())).metadata()).width).toBe(36);

      placeFixture("cbz/comicbox/Captain Science #001.cbz", join(library.root, "Later", "Later #001.cbz"));
      await scan(a, library.adminToken, library.libraryId);
      await waitFor(() => a.logs.some((line) => line.includes("thumbnail not made, will retry")), "the thumbnail's failure", 20_000);
      expect(a.logs.find((line) => line.includes("thumbnail not made, will retry"))).toContain("the object storage is unreachable or refused the request");
      const errors = await a.json("GET", `/api/v1/books/errors?libraryId=${library.libraryId}&errorType=thumbnail`, undefined, bearer(library.adminToken));
      expect(errors.status).toBe(200);
      expect(errors.body.totalBooksWithErrors).toBe(0);
    });
  });

  describe(`a bucket that cannot be used stops the start [${kind}]`, () => {
    const SECRET = "never-print-this-secret-0123456789";
    let s3: TestS3Server;
    let dir: string;
    let database: Awaited<ReturnType<typeof createTestDatabase>>;

    beforeAll(async () => {
      s3 = await startS3Server();
      dir = mkdtempSync(join(tmpdir(), "longbox-s3-start-"));
      database = await createTestDatabase(kind, join(dir, "data"));
    });
    afterAll(async () => {
      await database?.drop();
      await s3?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const serveWith = (s3Settings: Record<string, unknown>, command: string[] = ["serve"]) => {
      const s3Config = { bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_ACCESS_KEY_ID, secret_access_key: SECRET, ...s3Settings };
      const configPath = writeInstanceConfig(dir, database, { files: { storage: "s3", s3: s3Config } });
      return runLongbox([...command, "--config", configPath]);
    };

    test("refused credentials: exit 1 naming the storage's answer, the secret never printed", async () => {
      const result = await serveWith({ access_key_id: "NOT-A-KEY" });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("the object storage (files.storage: s3) cannot be used");
      expect(result.stderr).toContain("InvalidAccessKeyId");
      expect(result.stdout).not.toContain("longbox listening");
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    });

    test("a bucket that does not exist, or an endpoint that does not answer: exit 1 with the reason", async () => {
      const missing = await serveWith({ bucket: "no-such-bucket" });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('bucket "no-such-bucket"');
      expect(missing.stderr).toContain("NoSuchBucket");

      const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
      const port = closed.port;
      closed.stop(true);
      const unreachable = await serveWith({ endpoint: `http://127.0.0.1:${port}` });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toContain(`at http://127.0.0.1:${port}`);
      expect(unreachable.stderr).toContain("ConnectionRefused");
    });

    test("files.storage s3 without a bucket is a configuration error (exit 2); config check masks the secret", async () => {
      const result = await serveWith({ bucket: "" });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("files.s3.bucket is required when files.storage is s3");
      const shown = await serveWith({}, ["config", "check"]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('"secret_access_key": "********"');
      expect(shown.stdout).not.toContain(SECRET);
    });

    test("credentials from the environment: the client is given those the start checked, S3_* before AWS_*", async () => {
      const configPath = writeInstanceConfig(dir, database, { files: { storage: "s3", s3: { bucket: s3.bucket, endpoint: s3.endpoint } } });
      // Bun's client, left to itself, lets an empty S3_ACCESS_KEY_ID hide AWS_ACCESS_KEY_ID
      // ("Missing S3 credentials") after the check had passed: empty counts as unset for both.
      const env = { S3_ACCESS_KEY_ID: "", S3_SECRET_ACCESS_KEY: "", AWS_ACCESS_KEY_ID: S3_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET };
      const command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath];
      const server = await startServerProcess(command, { env: { PATH: process.env.PATH ?? "", ...env } });
      server.child.kill("SIGTERM");
      expect(await server.child.exited).toBe(0);
      expect(server.output()).not.toContain(SECRET);

      const refused = await runLongbox(["serve", "--config", configPath], { env: { ...env, S3_ACCESS_KEY_ID: "NOT-A-KEY" } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("InvalidAccessKeyId");
    });

    test("the SERVICE_FILES__… environment overrides reach the storage settings", async () => {
      const configPath = writeInstanceConfig(dir, database);
      const env = {
        SERVICE_FILES__STORAGE: "s3",
        SERVICE_FILES__S3__BUCKET: s3.bucket,
        SERVICE_FILES__S3__ENDPOINT: s3.endpoint,
        SERVICE_FILES__S3__ACCESS_KEY_ID: "FROM-THE-ENVIRONMENT",
        SERVICE_FILES__S3__SECRET_ACCESS_KEY: SECRET,
        SERVICE_FILES__S3__PREFIX: "env/",
      };
      const shown = await runLongbox(["config", "check", "--config", configPath], { env });
      expect(shown.code).toBe(0);
      const files = JSON.parse(shown.stdout.slice(shown.stdout.indexOf("\n") + 1)).files;
      expect(files).toMatchObject({ storage: "s3", s3: { bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: "FROM-THE-ENVIRONMENT", secret_access_key: "********", prefix: "env/" } });
      // The unknown key id from the environment is what the storage refuses.
      const started = await runLongbox(["serve", "--config", configPath], { env });
      expect(started.code).toBe(1);
      expect(started.stderr).toContain("InvalidAccessKeyId");
      expect(started.stdout + started.stderr).not.toContain(SECRET);
    });
  });
}
