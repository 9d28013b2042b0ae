/**
 * The single executable as users get it: built once with build.ts, copied alone into an empty
 * folder and run with a minimal environment from a working directory of its own, so that
 * nothing of the project (node_modules, migrations, sources) can help it. It must start the
 * server on SQLite and PostgreSQL, and read every fixture exactly as the sources do.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { startServerProcess } from "../../scripts/server-process";
import { buildIsolatedBinary, type IsolatedBinary } from "../../scripts/isolated-binary";
import type { AnalyzeReport } from "../../src/formats/analyze-command";
import { VERSION } from "../../src/version";
import { runLongbox, runProgram, type CliResult } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS } from "../helpers/databases";
import { filesUnder } from "../helpers/files";
import { FIXTURES } from "../helpers/fixtures";
import { jsonRequester, requester, TEST_AUTH } from "../helpers/server";
import { queryDatabase } from "../helpers/sql";
import { childrenOf, freePort, killSupervisorOutright, waitFor } from "../helpers/server-processes";
import { AVAILABLE_LOCALES } from "../../src/i18n/catalogs";

const BOOK_FOLDERS = ["cbz", "cbr", "epub", "pdf", "unsupported"];
const START_TIMEOUT_MS = 20_000;

let binary: IsolatedBinary;

beforeAll(async () => {
  binary = await buildIsolatedBinary();
}, 180_000);

afterAll(() => binary?.remove());

function runBinary(args: string[], timeoutMs?: number): Promise<CliResult> {
  return runProgram([binary.path, ...args], { cwd: binary.workDir, env: binary.env, timeoutMs });
}

describe("the compiled binary", () => {
  test("--version, --help and the exit codes, without writing anything", async () => {
    const version = await runBinary(["--version"]);
    expect(version).toMatchObject({ code: 0, stderr: "" });
    expect(version.stdout).toStartWith(`longbox ${VERSION}\ncommit `);
    expect(version.stdout).toContain(`\ntarget linux-${process.arch}\nbun ${Bun.version}\n`);

    const help = await runBinary(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("longbox analyze FILE...");

    const unknown = await runBinary(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');

    expect((await runBinary(["analyze"])).code).toBe(2);
    expect((await runBinary(["config", "check", "--config", "nowhere.yaml"])).code).toBe(2);

    const missing = await runBinary(["analyze", "/no/such/book.cbz"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file: /no/such/book.cbz");

    // Without a configuration file, analyze uses the defaults and creates none.
    expect(readdirSync(binary.workDir)).toEqual([]);
  });

  for (const kind of DATABASE_KINDS) {
    test(`serve on ${kind}: embedded migrations, health, first-run setup, SIGTERM`, async () => {
      const dataDir = binary.scratch(kind);
      const database = await createTestDatabase(kind, dataDir);
      try {
        const configPath = join(dataDir, "config.yaml");
        const config = { application: { host: "127.0.0.1", workers: 1, data_dir: dataDir }, database: database.config, auth: TEST_AUTH };
        writeFileSync(configPath, JSON.stringify(config));
        if (kind === "postgres") {
          const migrate = await runBinary(["migrate", "--config", configPath]);
          expect(migrate.stderr).toBe("");
          expect(migrate.code).toBe(0);
        }

        const nativeCache = binary.scratch("native-cache");
        const server = await serve(configPath, { ...binary.env, LONGBOX_NATIVE_CACHE: nativeCache });
        const request = requester(server.url);
        try {
          const health = await request("/health");
          expect(health.status).toBe(200);
          expect(await health.json()).toMatchObject({ status: "ok" });
          // The first-run setup writes a user: the database has its tables.
          const setup = () =>
            request("/api/v1/setup", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ username: "admin", password: "long enough" }),
            });
          // The web interface before setup: its first-run page and an asset, both embedded.
          const setupPage = await request("/setup", { headers: { accept: "text/html" } });
          expect(setupPage.status).toBe(200);
          const html = await setupPage.text();
          expect(html).toContain("Create the administrator");
          // Every message catalog is embedded too: each language's page says its language.
          for (const locale of AVAILABLE_LOCALES) {
            const translated = await (await request("/setup", { headers: { accept: "text/html", "accept-language": locale } })).text();
            expect(translated).toContain(`<html lang="${locale}">`);
          }
          const stylesheet = html.match(/href="(\/static\/css\/app\.css\?v=[^"]+)"/)?.[1];
          expect(stylesheet).toBeDefined();
          const css = await request(stylesheet!);
          expect(css.headers.get("content-type")).toStartWith("text/css");
          expect(await css.text()).toContain("--accent");
          // Its gzip was made at build time, not by the running server: the binary carries the
          // very bytes sent (as the embedding macro hands them over, in base64, or raw).
          const zipped = await request(stylesheet!, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
          expect(zipped.headers.get("content-encoding")).toBe("gzip");
          const gzip = Buffer.from(await zipped.arrayBuffer());
          expect(gunzipSync(gzip).toString("utf8")).toBe(await (await request(stylesheet!)).text());
          const executable = readFileSync(binary.path);
          expect(executable.includes(gzip.toString("base64")) || executable.includes(gzip)).toBe(true);

          expect((await setup()).status).toBe(201);
          expect((await setup()).status).toBe(409);
          if (kind === "sqlite") expect(existsSync(join(dataDir, "longbox.db"))).toBe(true);
          // $LONGBOX_NATIVE_CACHE holds the addons (the setup hashed a password with argon2), and
          // start-up stays lazy: canvas (with pdf.js) loads with the first PDF, not before.
          const unpacked = readdirSync(nativeCache);
          expect(unpacked.some((name) => name.startsWith("node-rs-argon2-"))).toBe(true);
          expect(unpacked.some((name) => name.includes("canvas"))).toBe(false);

          // A backup while it serves (SQLite copies in a worker thread the binary bundles), restored
          // into a fresh database that then holds the admin.
          const backup = await runBinary(["backup", "--to", binary.scratch(`${kind}-backups`), "--config", configPath], 60_000);
          expect(backup.code).toBe(0);
          const file = backup.stdout.trim().split(" (")[0]!;
          expect(statSync(file).mode & 0o777).toBe(0o600);
          const freshDir = binary.scratch(`${kind}-restored`);
          const fresh = await createTestDatabase(kind, freshDir);
          try {
            const freshConfig = join(freshDir, "config.yaml");
            writeFileSync(freshConfig, JSON.stringify({ ...config, application: { ...config.application, data_dir: freshDir }, database: fresh.config }));
            const restore = await runBinary(["restore", file, "--config", freshConfig], 60_000);
            expect(restore.stderr).toBe("");
            expect(restore.code).toBe(0);
            expect(await queryDatabase(fresh.target, "SELECT username FROM users")).toEqual([{ username: "admin" }]);
          } finally {
            await fresh.drop();
          }
        } finally {
          server.process.kill("SIGTERM");
        }
        expect(await server.process.exited).toBe(0);
      } finally {
        await database.drop();
      }
    }, 60_000);
  }

  test("serve --workers 2 started by a Bun program, output ignored, supervisor SIGKILLed while its web process starts: the web process ends by itself and frees the port", async () => {
    const dataDir = binary.scratch("orphan");
    const port = freePort();
    const configPath = join(dataDir, "config.yaml");
    writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", port, data_dir: dataDir }, auth: TEST_AUTH }));
    const supervisor = Bun.spawn([binary.path, "serve", "--config", configPath, "--workers", "2"], {
      cwd: binary.workDir,
      env: binary.env,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    await killSupervisorOutright(supervisor, port, true);
  }, 60_000);

  test.if(process.platform === "linux")("serve --workers 2 and --role worker: each process is named after its role, as ps shows it", async () => {
    const dataDir = binary.scratch("names");
    const configPath = join(dataDir, "config.yaml");
    writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", data_dir: dataDir }, auth: TEST_AUTH }));
    const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    const options = { cwd: binary.workDir, env: binary.env, timeoutMs: START_TIMEOUT_MS };
    const supervisor = await startServerProcess([binary.path, "serve", "--config", configPath, "--port", "0", "--workers", "2"], options);
    try {
      expect(comm(supervisor.child.pid)).toBe("longbox");
      let web: number[] = [];
      await waitFor(() => (web = childrenOf(supervisor.child.pid)).length === 1 && comm(web[0]!) === "longbox-web", "the web process to name itself");
      const worker = await startServerProcess([binary.path, "serve", "--config", configPath, "--role", "worker"], options);
      try {
        expect(comm(worker.child.pid)).toBe("longbox-worker");
      } finally {
        worker.child.kill("SIGTERM");
        await worker.child.exited;
      }
    } finally {
      supervisor.child.kill("SIGTERM");
      await supervisor.child.exited;
    }
  }, 60_000);

  test("serve: a JPEG XL page goes to a browser as JPEG (libjxl's WebAssembly embedded)", async () => {
    const dataDir = binary.scratch("jxl");
    const library = binary.scratch("jxl-library");
    mkdirSync(join(library, "Formats"), { recursive: true });
    copyFileSync(join(FIXTURES, "cbz", "stump", "book-image-format-test.zip"), join(library, "Formats", "Formats 1.cbz"));
    const database = await createTestDatabase("sqlite", dataDir);
    try {
      const configPath = join(dataDir, "config.yaml");
      writeFileSync(configPath, JSON.stringify({ application: { host: "127.0.0.1", workers: 1, data_dir: dataDir }, database: database.config, auth: TEST_AUTH }));
      const server = await serve(configPath, binary.env);
      const request = requester(server.url);
      const json = jsonRequester(server.url);
      try {
        const call = async (method: string, path: string, token?: string, body?: unknown) => (await json(method, path, body, token ? { authorization: `Bearer ${token}` } : {})).body;
        await call("POST", "/api/v1/setup", undefined, { username: "admin", password: "long enough" });
        const { token } = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: "long enough" });
        const created = await call("POST", "/api/v1/libraries", token, { name: "formats", path: library });
        const { scanId } = await call("POST", `/api/v1/libraries/${created.id}/scan`, token);
        for (let wait = 0; wait < 200 && (await call("GET", `/api/v1/libraries/${created.id}/scan-status`, token)).status !== "completed"; wait++) await Bun.sleep(50);
        expect((await call("GET", `/api/v1/libraries/${created.id}/scan-status`, token)).scanId).toBe(scanId);
        const [book] = (await call("GET", `/api/v1/books?libraryId=${created.id}`, token)).data;
        expect(book.pageCount).toBe(5);
        const page = await request(`/api/v1/books/${book.id}/pages/3`, { headers: { authorization: `Bearer ${token}`, accept: "image/webp,*/*" } });
        expect(page.status).toBe(200);
        expect(page.headers.get("content-type")).toBe("image/jpeg");
        expect((await page.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      } finally {
        server.process.kill("SIGTERM");
        await server.process.exited;
      }
    } finally {
      await database.drop();
    }
  }, 60_000);

  test("analyze reads every fixture exactly as the sources do, with native addons in the cache folder", async () => {
    const books = BOOK_FOLDERS.flatMap((folder) => filesUnder(join(FIXTURES, folder)).map((file) => join(FIXTURES, folder, file)));
    const fromBinary = await runBinary(["analyze", ...books], 120_000);
    const fromSource = await runLongbox(["analyze", ...books], { cwd: binary.scratch("source"), timeoutMs: 120_000 });
    expect(fromBinary.stderr).toBe(fromSource.stderr);
    expect(fromBinary.code).toBe(0);
    expect(fromSource.code).toBe(0);

    const binaryReports = parseReports(fromBinary.stdout);
    const sourceReports = parseReports(fromSource.stdout);
    expect(binaryReports.map((report) => report.path)).toEqual(books);
    expect(binaryReports.map(comparable)).toEqual(sourceReports.map(comparable));
    // Both could fail alike (a plugin that cannot load anywhere): every format must read books.
    for (const format of ["cbz", "cbr", "epub", "pdf", "cb7", "cbt"]) {
      expect(binaryReports.some((report) => report.format === format && (report.pageCount ?? 0) > 0)).toBe(true);
    }

    // Reading PDFs loaded canvas (through pdf.js), as sharp and argon2 are loaded at start:
    // their addons are unpacked into the cache folder, not into TMPDIR.
    expect(readdirSync(binary.env.TMPDIR!)).toEqual([]);
    const cache = join(binary.env.HOME!, ".cache", "longbox", "native");
    const unpacked = readdirSync(cache).map((name) => name.replace(/-\d.*$/, ""));
    expect(unpacked.sort()).toEqual(["napi-rs-canvas", "node-rs-argon2", "sharp"]);
  }, 240_000);
});

/** Starts `longbox serve` on a free port and waits until it listens. */
async function serve(configPath: string, env: Record<string, string>) {
  const { url, child } = await startServerProcess([binary.path, "serve", "--config", configPath, "--port", "0"], {
    cwd: binary.workDir,
    env,
    timeoutMs: START_TIMEOUT_MS,
  });
  return { url, process: child };
}

function parseReports(stdout: string): AnalyzeReport[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as AnalyzeReport);
}

/** What must match between the binary and the sources (messages may name internals). */
function comparable(report: AnalyzeReport) {
  return {
    path: report.path,
    format: report.format,
    mediaType: report.mediaType,
    pageCount: report.pageCount,
    firstPage: report.firstPage,
    metadata: report.metadata,
    errorTypes: report.errors.map((error) => error.type),
  };
}
