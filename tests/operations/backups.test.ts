/**
 * `longbox backup` and `longbox restore`, through the command line and HTTP, on both databases:
 * a backup made while a scan runs and 32 clients read restores into a fresh data folder that a
 * server then serves (same password, books and uploaded covers); a backup of a quiet server
 * restores every table identically; backups are written with mode 0600; a restore onto the
 * database of a running server is refused without --force; damaged and foreign files are
 * refused with a clear message and touch nothing; PostgreSQL needs a recent enough pg_dump.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { create as createTar, extract as extractTar, list as listTar } from "tar";
import { loadConfig } from "../../src/config/load";
import { translatorFor } from "../../src/i18n/translator";
import { createLogger } from "../../src/logging/logger";
import { startServer } from "../../src/server";
import { adminSession, bearer, createUser, login, PASSWORD, webSignIn } from "../helpers/auth";
import { runLongbox } from "../helpers/cli";
import { startS3Server, type TestS3Server } from "../helpers/s3-server";
import { createTestDatabase, DATABASE_KINDS, type DatabaseKind, type TestDatabase } from "../helpers/databases";
import { comicsFolder, createLibrary, booksOf, scanToCompletion, waitForScan } from "../helpers/library";
import { jsonRequester, requester, startTestServer, TEST_AUTH, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/server-processes";
import { databaseOf, queryDatabase, tableContents } from "../helpers/sql";

const READERS = 32;

/** A data folder and database no server uses yet, with its configuration file. */
interface FreshFolder {
  dir: string;
  configPath: string;
  database: TestDatabase;
}

async function freshFolder(kind: DatabaseKind, settings: Record<string, unknown> = {}): Promise<FreshFolder> {
  const dir = mkdtempSync(join(tmpdir(), "longbox-restore-"));
  const database = await createTestDatabase(kind, join(dir, "data"));
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", port: 0, data_dir: join(dir, "data") }, database: database.config, auth: TEST_AUTH, ...settings }));
  return { dir, configPath, database };
}

async function removeFolder(folder: FreshFolder): Promise<void> {
  await folder.database.drop();
  rmSync(folder.dir, { recursive: true, force: true });
}

/** Whether the folder's database holds no table (nothing was restored into it). */
async function isEmpty(folder: FreshFolder): Promise<boolean> {
  if ("sqliteFile" in folder.database.target) return !existsSync(folder.database.target.sqliteFile);
  const [row] = await queryDatabase(folder.database.target, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')");
  return Number(row?.n) === 0;
}

/** The path `longbox backup` printed. */
function writtenBackup(stdout: string): string {
  const path = /^(\S+\.tar\.gz) \(\d+ bytes\)$/m.exec(stdout)?.[1];
  if (!path) throw new Error(`no backup path in: ${stdout}`);
  return path;
}

/** The entries of a backup file, in order, and its manifest. */
async function backupEntries(file: string): Promise<{ entries: string[]; manifest: Record<string, any> }> {
  const entries: string[] = [];
  await listTar({ file, onReadEntry: (entry) => void entries.push(entry.path) });
  const folder = mkdtempSync(join(tmpdir(), "longbox-backup-read-"));
  try {
    await extractTar({ file, cwd: folder, filter: (path) => path === "manifest.json" });
    return { entries, manifest: JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A copy of the backup with `change` applied to its unpacked files (manifest first again). */
async function alteredBackup(file: string, change: (folder: string) => void): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), "longbox-backup-alter-"));
  await extractTar({ file, cwd: folder });
  change(folder);
  const altered = join(mkdtempSync(join(tmpdir(), "longbox-altered-")), "altered.tar.gz");
  const names = readdirSync(folder).sort((a, b) => (a === "manifest.json" ? -1 : b === "manifest.json" ? 1 : a.localeCompare(b)));
  await createTar({ file: altered, gzip: true, cwd: folder }, names);
  rmSync(folder, { recursive: true, force: true });
  return altered;
}

function editManifest(folder: string, edit: (manifest: Record<string, any>) => void): void {
  const path = join(folder, "manifest.json");
  const manifest = JSON.parse(readFileSync(path, "utf8"));
  edit(manifest);
  writeFileSync(path, JSON.stringify(manifest));
}

async function coverImage(color: string): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 60, channels: 3, background: color } }).png().toBuffer();
}

async function uploadCover(server: TestServer, token: string, path: string, image: Buffer): Promise<void> {
  const form = new FormData();
  form.append("file", new Blob([Uint8Array.from(image)], { type: "image/png" }), "cover.png");
  const response = await server.fetch(path, { method: "POST", headers: bearer(token), body: form });
  expect(response.status).toBe(204);
}

/** Reads through the API as fast as it answers until `stop` is called; counts answers by status. */
function readersAt(request: (path: string) => Promise<Response>, paths: string[], count: number) {
  let running = true;
  const statuses = new Map<number, number>();
  const reader = async (index: number) => {
    for (let turn = index; running; turn++) {
      const response = await request(paths[turn % paths.length]!);
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  const all = Promise.all(Array.from({ length: count }, (_, index) => reader(index)));
  return {
    async stop() {
      running = false;
      await all;
      return statuses;
    },
  };
}

for (const kind of DATABASE_KINDS) {
  describe(`backup and restore [${kind}]`, () => {
    let server: TestServer;
    let adminToken: string;
    let firstLibrary: string;
    let underLoad: string;
    const folders: FreshFolder[] = [];
    const fresh = async () => {
      const folder = await freshFolder(kind);
      folders.push(folder);
      return folder;
    };

    beforeAll(async () => {
      server = await startTestServer(kind, { backup: { schedule: "" } });
      adminToken = (await adminSession(server)).token;
      const library = await createLibrary(server, bearer(adminToken), { name: "first", path: await comicsFolder(6, { pages: 2, seed: 1, series: 2 }) });
      firstLibrary = library.id;
      await scanToCompletion(server, adminToken, firstLibrary);
      const [book] = await booksOf(server, bearer(adminToken), firstLibrary);
      await uploadCover(server, adminToken, `/api/v1/books/${book!.id}/cover`, await coverImage("#c03"));
      await uploadCover(server, adminToken, `/api/v1/series/${book!.seriesId}/cover`, await coverImage("#03c"));
    });

    afterAll(async () => {
      await server?.stop();
      for (const folder of folders) await removeFolder(folder);
    });

    test(`a backup made while a scan runs and ${READERS} clients read restores into a fresh data folder that serves the same books and covers`, async () => {
      const books = await booksOf(server, bearer(adminToken), firstLibrary);
      const second = await createLibrary(server, bearer(adminToken), { name: "second", path: await comicsFolder(150, { pages: 2, seed: 100, series: 10 }) });
      const started = await server.json("POST", `/api/v1/libraries/${second.id}/scan`, undefined, bearer(adminToken));
      expect(started.status).toBe(202);
      const paths = [`/api/v1/books?libraryId=${firstLibrary}`, `/api/v1/books/${books[0]!.id}`, `/api/v1/books/${books[0]!.id}/thumbnail`, "/api/v1/series", `/api/v1/libraries/${second.id}/scan-status`];
      const readers = readersAt((path) => server.fetch(path, { headers: bearer(adminToken) }), paths, READERS);
      const before = await server.json("GET", `/api/v1/libraries/${second.id}/scan-status`, undefined, bearer(adminToken));
      const made = await runLongbox(["backup", "--config", server.configPath], { timeoutMs: 120_000 });
      const after = await server.json("GET", `/api/v1/libraries/${second.id}/scan-status`, undefined, bearer(adminToken));
      const statuses = await readers.stop();
      expect(made.stderr).not.toContain("longbox:");
      expect(made.code).toBe(0);
      // The backup was made while the scan ran.
      expect(before.body.status).toBe("running");
      expect(after.body.status).toBe("running");
      expect([...statuses.keys()]).toEqual([200]);
      expect(statuses.get(200)!).toBeGreaterThan(READERS);
      const finished = await waitForScan(server, bearer(adminToken), second.id, started.body.scanId, 120_000);
      expect(finished.status).toBe("completed");
      await server.server.services.thumbnails.idle();

      underLoad = writtenBackup(made.stdout);
      expect(underLoad.startsWith(join(server.dir, "data", "backups"))).toBe(true);
      // It holds password hashes: nobody else may read it.
      expect(statSync(underLoad).mode & 0o777).toBe(0o600);
      const { entries, manifest } = await backupEntries(underLoad);
      expect(entries[0]).toBe("manifest.json");
      expect(manifest).toMatchObject({ format: "longbox-backup", formatVersion: 1, database: { kind }, covers: { count: 2 } });
      expect(entries).toContain(kind === "sqlite" ? "database.sqlite" : "database.pgdump");
      // Uploaded covers are kept; thumbnails are not (they are made again).
      expect(entries.filter((entry) => entry.startsWith("covers/") && !entry.endsWith("/"))).toHaveLength(2);
      expect(entries.some((entry) => entry.includes("thumbnails"))).toBe(false);

      const folder = await fresh();
      const restored = await runLongbox(["restore", underLoad, "--config", folder.configPath], { timeoutMs: 120_000 });
      expect(restored.stderr).toBe("");
      expect(restored.code).toBe(0);
      expect(restored.stdout).toContain("2 uploaded covers");
      if ("sqliteFile" in folder.database.target) {
        expect(statSync(folder.database.target.sqliteFile).mode & 0o777).toBe(0o600);
        expect(await queryDatabase(folder.database.target, "PRAGMA foreign_key_check")).toEqual([]);
      }

      // A server on the restored folder: the same password, books and uploaded cover.
      const logs: string[] = [];
      const restoredServer = await startServer(loadConfig({ path: folder.configPath, env: {} }), { port: 0, log: createLogger({ level: "info", format: "text", sink: (line) => void logs.push(line) }) });
      try {
        const json = jsonRequester(restoredServer.url);
        const token = (await login({ json }, "admin", PASSWORD)).token;
        const { body } = await json("GET", `/api/v1/books?libraryId=${firstLibrary}&pageSize=500`, undefined, bearer(token));
        expect(body.data.map((book: { id: string }) => book.id).sort()).toEqual(books.map((book) => book.id).sort());
        const cover = await requester(restoredServer.url)(`/api/v1/books/${books[0]!.id}/thumbnail`, { headers: bearer(token) });
        expect(cover.status).toBe(200);
        const original = await server.fetch(`/api/v1/books/${books[0]!.id}/thumbnail`, { headers: bearer(adminToken) });
        expect(new Uint8Array(await cover.arrayBuffer())).toEqual(new Uint8Array(await original.arrayBuffer()));
      } finally {
        await restoredServer.stop();
      }
    }, 240_000);

    test("a backup of a quiet server restores every table identically", async () => {
      const made = await runLongbox(["backup", "--to", join(server.dir, "elsewhere"), "--config", server.configPath], { timeoutMs: 120_000 });
      expect(made.code).toBe(0);
      const file = writtenBackup(made.stdout);
      expect(file.startsWith(join(server.dir, "elsewhere"))).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const folder = await fresh();
      // A new PostgreSQL server has no such database yet: the restore creates it.
      if (kind === "postgres") await folder.database.drop();
      const restored = await runLongbox(["restore", file, "--config", folder.configPath], { timeoutMs: 120_000 });
      expect(restored.stderr).toBe("");
      expect(restored.code).toBe(0);
      const source = databaseOf(server);
      const original = await tableContents(source);
      const copy = await tableContents(folder.database.target);
      expect(Object.keys(copy)).toEqual(Object.keys(original));
      expect(Object.keys(original)).toContain(kind === "sqlite" ? "books" : "public.books");
      for (const table of Object.keys(original)) expect({ table, rows: copy[table] }).toEqual({ table, rows: original[table] });
      expect(original[kind === "sqlite" ? "books" : "public.books"]!.length).toBe(156);
      expect(readdirSync(join(folder.dir, "data", "covers"), { recursive: true }).filter((name) => String(name).includes("."))).toHaveLength(2);
    }, 240_000);

    test("restoring onto the database of a running server is refused without --force, and changes nothing", async () => {
      await createUser(server, adminToken, "after-backup");
      const refused = await runLongbox(["restore", underLoad, "--config", server.configPath], { timeoutMs: 120_000 });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(kind === "sqlite" ? /is open in another process \(is a Longbox server running on it\?\)/ : /other session\(s\) \(is a Longbox server running on it\?\)/);
      expect(refused.stderr).toContain("--force");
      expect((await login(server, "after-backup")).token).toBeTruthy();
    }, 120_000);

    test("a damaged or foreign file is refused with a clear message and restores nothing", async () => {
      const folder = await fresh();
      const scratch = mkdtempSync(join(tmpdir(), "longbox-bad-backups-"));
      const bytes = readFileSync(underLoad);
      const truncated = join(scratch, "truncated.tar.gz");
      writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
      const noise = join(scratch, "noise.tar.gz");
      writeFileSync(noise, crypto.getRandomValues(new Uint8Array(4096)));
      const foreign = join(scratch, "foreign.tar.gz");
      writeFileSync(join(scratch, "notes.txt"), "not a backup");
      await createTar({ file: foreign, gzip: true, cwd: scratch }, ["notes.txt"]);
      const otherKind = await alteredBackup(underLoad, (unpacked) => editManifest(unpacked, (manifest) => (manifest.database.kind = kind === "sqlite" ? "postgres" : "sqlite")));
      const newer = await alteredBackup(underLoad, (unpacked) => editManifest(unpacked, (manifest) => (manifest.database.schemaVersion = 999)));
      const tampered = await alteredBackup(underLoad, (unpacked) => {
        const dump = join(unpacked, kind === "sqlite" ? "database.sqlite" : "database.pgdump");
        const content = readFileSync(dump);
        content[content.length - 100] = content[content.length - 100]! ^ 0xff;
        writeFileSync(dump, content);
      });
      const incomplete = await alteredBackup(underLoad, (unpacked) => editManifest(unpacked, (manifest) => delete manifest.covers));
      const smuggled = await alteredBackup(underLoad, (unpacked) => writeFileSync(join(unpacked, "zz-extra.sh"), "echo hi"));
      const cases: [string, RegExp][] = [
        [truncated, /cannot be read as a Longbox backup \(damaged or not a backup\)/],
        [noise, /cannot be read as a Longbox backup \(damaged or not a backup\)/],
        [foreign, /is not a Longbox backup \(it does not start with manifest.json\)/],
        [otherKind, /restoring into a database of the other kind is not supported/],
        [newer, /schema version 999.*upgrade it first/],
        [tampered, /is damaged: its database dump does not match the checksum in its manifest/],
        [smuggled, /holds files a Longbox backup does not \(zz-extra.sh\)/],
        [incomplete, /is damaged: its manifest is incomplete \(\/covers /],
        [join(scratch, "missing.tar.gz"), /is not a file/],
      ];
      for (const [file, message] of cases) {
        const result = await runLongbox(["restore", file, "--config", folder.configPath], { timeoutMs: 60_000 });
        expect({ file, code: result.code, stderr: result.stderr }).toMatchObject({ file, code: 1, stderr: expect.stringMatching(message) });
        expect(await isEmpty(folder)).toBe(true);
      }
      expect(readdirSync(join(folder.dir, "data")).filter((name) => name.startsWith(".longbox-restore-"))).toEqual([]);
      rmSync(scratch, { recursive: true, force: true });
    }, 240_000);

    if (kind === "postgres") {
      test("without a pg_dump of at least the server's major version on the PATH, the backup says so", async () => {
        const missing = await runLongbox(["backup", "--config", server.configPath], { env: { PATH: "/nonexistent" } });
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/pg_dump is not on the PATH: PostgreSQL backups and restores need pg_dump \d+ or newer/);
        const tools = mkdtempSync(join(tmpdir(), "longbox-old-pg-"));
        writeFileSync(join(tools, "pg_dump"), "#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n");
        chmodSync(join(tools, "pg_dump"), 0o755);
        const old = await runLongbox(["backup", "--config", server.configPath], { env: { PATH: tools } });
        expect(old.code).toBe(1);
        expect(old.stderr).toMatch(/is version 9 .*older than the PostgreSQL server/);
        rmSync(tools, { recursive: true, force: true });
      });
    }

    test("--force restores onto the database of a running server", async () => {
      await login(server, "after-backup");
      const forced = await runLongbox(["restore", underLoad, "--force", "--config", server.configPath], { timeoutMs: 120_000 });
      expect(forced.code).toBe(0);
      expect(forced.stderr).toContain("restart that server now");
      const source = databaseOf(server);
      // The user made after the backup is gone from the database.
      expect(await queryDatabase(source, "SELECT username FROM users WHERE username = 'after-backup'")).toEqual([]);
      if (kind === "postgres") {
        // The server's sessions were ended (a request on one of them may fail once); its pool
        // reconnects to the restored database.
        let attempt = await server.json("POST", "/api/v1/auth/login", { username: "after-backup", password: PASSWORD });
        for (let retry = 0; retry < 10 && attempt.status >= 500; retry++) {
          await Bun.sleep(200);
          attempt = await server.json("POST", "/api/v1/auth/login", { username: "after-backup", password: PASSWORD });
        }
        expect(attempt.status).toBe(401);
      }
    }, 120_000);
  });
}

for (const kind of DATABASE_KINDS) {
  describe(`backups with covers in object storage [${kind}]`, () => {
    let s3: TestS3Server;
    let server: TestServer;
    let folder: FreshFolder | undefined;

    beforeAll(async () => {
      s3 = await startS3Server();
      server = await startTestServer(kind, { files: s3.files("before/"), backup: { schedule: "" } });
    });

    afterAll(async () => {
      await server?.stop();
      if (folder) await removeFolder(folder);
      await s3?.stop();
    });

    test("the uploaded covers are read from the bucket into the backup, and a restore writes them into the bucket it is configured with", async () => {
      const adminToken = (await adminSession(server)).token;
      const library = await createLibrary(server, bearer(adminToken), { name: "bucketed", path: await comicsFolder(2, { pages: 2, seed: 7, series: 1 }) });
      await scanToCompletion(server, adminToken, library.id);
      const [book] = await booksOf(server, bearer(adminToken), library.id);
      await uploadCover(server, adminToken, `/api/v1/books/${book!.id}/cover`, await coverImage("#0c3"));
      const uploaded = await s3.keys("before/covers/");
      expect(uploaded).toHaveLength(1);

      const made = await runLongbox(["backup", "--config", server.configPath], { timeoutMs: 120_000 });
      expect(made.code).toBe(0);
      const { entries } = await backupEntries(writtenBackup(made.stdout));
      expect(entries).toContain(uploaded[0]!.replace("before/", ""));
      expect(entries.some((entry) => entry.includes("thumbnails"))).toBe(false);

      // The bucket is lost: the new installation stores under another prefix, which holds a leftover.
      folder = await freshFolder(kind, { files: s3.files("after/") });
      await s3.client.write("after/covers/books/leftover.webp", "old");
      const restored = await runLongbox(["restore", writtenBackup(made.stdout), "--config", folder.configPath], { timeoutMs: 120_000 });
      expect(restored.stderr).toBe("");
      expect(restored.code).toBe(0);
      expect(await s3.keys("after/covers/")).toEqual(uploaded.map((key) => key.replace("before/", "after/")));
      const copy = await s3.client.file(uploaded[0]!.replace("before/", "after/")).bytes();
      expect(copy).toEqual(await s3.client.file(uploaded[0]!).bytes());
    }, 120_000);
  });
}

for (const kind of DATABASE_KINDS) {
  describe(`scheduled backups [${kind}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      // Every second, keeping two: the test sees the schedule fire and the oldest go.
      server = await startTestServer(kind, { backup: { schedule: "* * * * * *", keep: 2 } });
    });

    afterAll(async () => {
      await server?.stop();
    });

    test("the scheduled backup keeps the last backup.keep, and the admin server page shows the last one's time and size", async () => {
      const folder = join(server.dir, "data", "backups");
      // What backups cut short left behind: removed once a day old, kept while they may be in progress.
      mkdirSync(join(folder, ".staging-crashed"), { recursive: true });
      writeFileSync(join(folder, ".staging-crashed", "database.sqlite"), "partial");
      writeFileSync(join(folder, ".1-crashed.partial"), "partial");
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
      for (const name of [".staging-crashed", ".1-crashed.partial"]) utimesSync(join(folder, name), twoDaysAgo, twoDaysAgo);
      mkdirSync(join(folder, ".staging-in-progress"));
      const written = () => server.logs.filter((line) => line.includes("scheduled backup written"));
      const before = written().length;
      await waitFor(() => written().length >= before + 3, "three more scheduled backups", 60_000);
      await server.server.scheduler.stop();
      const files = readdirSync(folder).filter((name) => name.endsWith(".tar.gz")).sort();
      expect(files).toHaveLength(2);
      expect(readdirSync(folder).filter((name) => name.startsWith("."))).toEqual([".staging-in-progress"]);
      // The two newest of those written are the ones kept.
      const newest = written().slice(-2).map((line) => /file=(\S+)/.exec(line)![1]!.split("/").pop());
      expect(files).toEqual(newest.sort() as string[]);
      for (const name of files) expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);

      await adminSession(server);
      const cookie = await webSignIn(server, "admin");
      const page = await server.fetch("/admin", { headers: { cookie, accept: "text/html" } });
      expect(page.status).toBe(200);
      const html = await page.text();
      const last = statSync(join(folder, files[1]!));
      const section = /<div class="stat" id="last-backup">[\s\S]*?<\/div>/.exec(html)?.[0] ?? "";
      // The time is written in the page's language (Intl), and exactly in the datetime attribute.
      const shown = new Date(/<time datetime="([^"]+)">/.exec(section)?.[1] ?? "");
      expect(Math.abs(shown.getTime() - last.mtime.getTime())).toBeLessThan(1000);
      expect(section).toContain(translatorFor("en").size(last.size));
    }, 120_000);
  });
}

test("an invalid backup.schedule is refused at start, naming the key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "longbox-backup-config-"));
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, JSON.stringify({ application: { data_dir: join(dir, "data") }, backup: { schedule: "every night" } }));
  const checked = await runLongbox(["config", "check", "--config", configPath]);
  expect(checked.code).toBe(2);
  expect(checked.stderr).toContain("backup.schedule must be a cron expression");
  rmSync(dir, { recursive: true, force: true });
});
