import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, statSync, writeFileSync, readFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { startServerProcess, type ServerProcess } from "../../scripts/server-process";
import { PROJECT_ROOT, runLongbox, runProgram } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS } from "../helpers/databases";
import { filesUnder } from "../helpers/files";
import { createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { jsonClient, requester, TEST_AUTH } from "../helpers/server";
import { processClient } from "../helpers/server-processes";
import { VERSION } from "../../src/version";

const STRONG_SECRET = "0123456789abcdef0123456789abcdef-strong";

function configDir(yaml: string, overlay?: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "longbox-config-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  if (overlay !== undefined) writeFileSync(join(dir, "config.local.yaml"), overlay);
  return { dir, path };
}

async function effective(yaml: string, env: Record<string, string> = {}, overlay?: string) {
  const { path } = configDir(yaml, overlay);
  const result = await runLongbox(["config", "check", "--config", path], { env });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout.replace(/^#.*\n/, ""));
}

describe("configuration", () => {
  test("defaults fill every key the file leaves out", async () => {
    const config = await effective("application:\n  port: 9000\n");
    expect(config.application.port).toBe(9000);
    expect(config.database.type).toBe("sqlite");
    expect(config.auth).toMatchObject({
      jwt_expiry_hours: 24,
      refresh_token_enabled: true,
      refresh_token_expiry_days: 30,
      email_confirmation_required: false,
      argon2_memory_cost: 19456,
      argon2_time_cost: 2,
      argon2_parallelism: 1,
    });
    expect(config.email.verification_token_expiry_hours).toBe(24);
    expect(config.files.thumbnail_format).toBe("webp");
    expect(config.logging.level).toBe("info");
  });

  test("config.local.yaml is merged on top of the file", async () => {
    const config = await effective("application:\n  port: 9000\n  host: 127.0.0.1\n", {}, "application:\n  port: 9100\n");
    expect(config.application).toMatchObject({ port: 9100, host: "127.0.0.1" });
  });

  test("SERVICE_SECTION__KEY environment variables override the file, with types", async () => {
    const config = await effective("application:\n  port: 9000\n", {
      SERVICE_APPLICATION__PORT: "9200",
      SERVICE_AUTH__REFRESH_TOKEN_ENABLED: "false",
      SERVICE_DATABASE__POSTGRES__PASSWORD: "pg-secret",
      SERVICE_ENCRYPTION_KEY: "an encryption key of more than 32 bytes",
    });
    expect(config.application.port).toBe(9200);
    expect(config.auth.refresh_token_enabled).toBe(false);
    expect(config.database.postgres.password).toBe("********");
    expect(config.encryption_key).toBe("********");
  });

  test("${VAR} placeholders are stored literally, never interpolated", async () => {
    const config = await effective('email:\n  smtp_host: "${SMTP_HOST}"\n', { SMTP_HOST: "mail.example.org" });
    expect(config.email.smtp_host).toBe("${SMTP_HOST}");
  });

  test("config check masks every secret", async () => {
    const { path } = configDir(
      `auth:\n  jwt_secret: ${STRONG_SECRET}\nemail:\n  smtp_username: longbox\n  smtp_password: mailpw\ndatabase:\n  postgres:\n    url: postgres://u:dbpw@h/db\n`,
    );
    const result = await runLongbox(["config", "check", "--config", path]);
    expect(result.code).toBe(0);
    for (const secret of [STRONG_SECRET, "mailpw", "dbpw"]) expect(result.stdout).not.toContain(secret);
    expect(result.stdout).toContain("postgres://u:********@h/db");
  });

  test("an unknown key stops with exit 2 and names the key", async () => {
    const { path } = configDir("application:\n  prot: 9000\n");
    const result = await runLongbox(["config", "check", "--config", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("application.prot");
  });

  test("a value of the wrong type stops with exit 2 and names the key", async () => {
    const { path } = configDir("auth:\n  jwt_expiry_hours: soon\n");
    const result = await runLongbox(["config", "check", "--config", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("auth.jwt_expiry_hours");
  });

  test("a wrongly typed environment override stops with exit 2 naming the variable", async () => {
    const { path } = configDir("{}\n");
    const result = await runLongbox(["config", "check", "--config", path], { env: { SERVICE_APPLICATION__PORT: "eighty" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SERVICE_APPLICATION__PORT");
  });

  test("SERVICE_CONFIG names the file when --config is absent", async () => {
    const { path } = configDir("application:\n  port: 9300\n");
    const result = await runLongbox(["config", "check"], { env: { SERVICE_CONFIG: path } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.replace(/^#.*\n/, "")).application.port).toBe(9300);
  });

  test("a JWT secret under 32 bytes is refused at start, and by config check, with exit 2", async () => {
    const { dir, path } = configDir(`application:\n  port: 0\n  data_dir: ${join(dir_(), "data")}\nauth:\n  jwt_secret: too-short\n`);
    for (const command of [["serve"], ["config", "check"]]) {
      const result = await runLongbox([...command, "--config", path], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe("longbox: auth.jwt_secret is too weak: it must be at least 32 bytes (use e.g. `openssl rand -base64 48`)\n");
    }
  });

  test("an encryption key under 32 bytes is refused at start, and by config check, with exit 2", async () => {
    const { dir, path } = configDir(`application:\n  port: 0\n  data_dir: ${join(dir_(), "data")}\n`);
    for (const command of [["serve"], ["config", "check"]]) {
      const result = await runLongbox([...command, "--config", path], { cwd: dir, env: { SERVICE_ENCRYPTION_KEY: "short-key" } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("encryption_key is too weak");
      expect(result.stderr).not.toContain("short-key");
    }
  });

  test("a secret file in the data folder under 32 bytes is refused by config check as by serve: exit 2, the same message", async () => {
    for (const [file, what] of [["jwt-secret", "JWT secret"], ["encryption-key", "encryption key"]] as const) {
      const data = join(dir_(), "data");
      mkdirSync(data);
      // Both present and strong, but for the one under test.
      writeFileSync(join(data, "jwt-secret"), `${STRONG_SECRET}\n`);
      writeFileSync(join(data, "encryption-key"), `${STRONG_SECRET}\n`);
      writeFileSync(join(data, file), "cut-short\n");
      const { dir, path } = configDir(`application:\n  port: 0\n  data_dir: ${data}\n`);
      const checked = await runLongbox(["config", "check", "--config", path], { cwd: dir });
      expect(checked.stderr).toBe(`longbox: the stored ${what} in ${join(data, file)} is under 32 bytes; delete the file to generate a new one\n`);
      expect(checked.code).toBe(2);
      expect(checked.stdout).toBe("");
      const served = await runLongbox(["serve", "--config", path], { cwd: dir });
      expect(served.code).toBe(2);
      expect(served.stderr).toBe(checked.stderr);
      expect(readFileSync(join(data, file), "utf8")).toBe("cut-short\n");
    }
  });

  test("a stored secret file config check cannot read (another user than the server's) is exit 2 with a message, not a raw error", async () => {
    const root = dir_();
    const data = join(root, "data");
    mkdirSync(data);
    writeFileSync(join(data, "jwt-secret"), `${STRONG_SECRET}\n`, { mode: 0o600 });
    writeFileSync(join(data, "encryption-key"), `${STRONG_SECRET}\n`, { mode: 0o600 });
    const { dir, path } = configDir(`application:\n  port: 0\n  data_dir: ${data}\n`);
    // Root reads any file: the check then runs as nobody, who can reach the folders but not the 0600 files.
    const asOtherUser = process.getuid?.() === 0;
    for (const folder of [root, data, dir]) chmodSync(folder, 0o755);
    const command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "config", "check", "--config", path];
    const check = () =>
      runProgram(asOtherUser ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...command] : command, { cwd: dir, env: { HOME: "/tmp" } });
    const refusal = `longbox: the stored JWT secret in ${join(data, "jwt-secret")} cannot be read (EACCES): run this as the user the server runs as\n`;
    // The file unreadable, then the whole data folder unsearchable (the file must not pass for missing).
    try {
      for (const [target, mode] of [[join(data, "jwt-secret"), asOtherUser ? 0o600 : 0o000], [data, asOtherUser ? 0o700 : 0o000]] as const) {
        chmodSync(target, mode);
        const checked = await check();
        expect(checked.stderr).toBe(refusal);
        expect(checked.code).toBe(2);
        expect(checked.stdout).toBe("");
      }
    } finally {
      // A failed assertion must not leave a folder the suite's clean-up cannot remove.
      chmodSync(data, 0o755);
      chmodSync(join(data, "jwt-secret"), 0o600);
    }
  });

  test("a database.postgres.url that names no server is refused by config check, serve, migrate and user create: exit 2, the same message, no password", async () => {
    const message = "longbox: database.postgres.url must be a PostgreSQL connection URL such as postgres://user:password@host:5432/database (special characters of the password percent-encoded)\n";
    const urls = [
      "postgres://longbox:pg-password@db.example.org:fivefourthreetwo/longbox",
      "db.example.org:5432/longbox?password=pg-password",
      "mysql://longbox:pg-password@db.example.org/longbox",
    ];
    for (const url of urls) {
      const { dir, path } = configDir(`application:\n  port: 0\n  data_dir: ${join(dir_(), "data")}\ndatabase:\n  type: postgres\n  postgres:\n    url: "${url}"\n`);
      for (const command of [["config", "check"], ["serve"], ["migrate"], ["user", "create", "--username", "someone", "--password", "a long enough password"]]) {
        const result = await runLongbox([...command, "--config", path], { cwd: dir });
        expect(result.stderr).toBe(message);
        expect(result.code).toBe(2);
        expect(result.stdout).not.toContain("pg-password");
      }
    }
    // A list of hosts, which the driver tries in turn, is a URL it reads.
    const listed = await effective("database:\n  type: postgres\n  postgres:\n    url: postgresql://longbox:pw@db1:5432,db2:5433/longbox\n");
    expect(listed.database.postgres.url).toBe("postgresql://longbox:********@db1:5432,db2:5433/longbox");
  });

  test("an application.base_url that is no absolute http(s) URL stops with exit 2", async () => {
    for (const baseUrl of ["books.example.org/longbox", "ftp://books.example.org/"]) {
      const { path } = configDir(`application:\n  base_url: ${baseUrl}\n`);
      const result = await runLongbox(["config", "check", "--config", path]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("application.base_url must be an absolute http(s) URL");
    }
    expect((await effective("application:\n  base_url: https://books.example.org/longbox/\n")).application.base_url).toBe("https://books.example.org/longbox/");
  });

  test("files.storage s3 that cannot work is refused by config check as by serve: exit 2, the same message", async () => {
    const s3 = { bucket: "longbox", endpoint: "http://127.0.0.1:9", access_key_id: "KEY-ID", secret_access_key: "s3-secret-never-printed" };
    const refusals: [Record<string, string>, Record<string, string>, string][] = [
      [{ bucket: "" }, {}, "files.s3.bucket is required when files.storage is s3"],
      [{ endpoint: "minio:9000" }, {}, 'files.s3.endpoint must be an http:// or https:// URL, got "minio:9000"'],
      [{ access_key_id: "" }, {}, "files.s3.access_key_id is required when files.storage is s3 (or S3_ACCESS_KEY_ID or AWS_ACCESS_KEY_ID in the environment)"],
      [{ secret_access_key: "" }, { S3_ACCESS_KEY_ID: "unused" }, "files.s3.secret_access_key is required when files.storage is s3"],
    ];
    for (const [settings, env, message] of refusals) {
      const { dir, path } = configDir(`application:\n  port: 0\n  data_dir: ${join(dir_(), "data")}\nfiles:\n  storage: s3\n  s3: ${JSON.stringify({ ...s3, ...settings })}\n`);
      const checked = await runLongbox(["config", "check", "--config", path], { cwd: dir, env });
      expect(checked.code).toBe(2);
      expect(checked.stderr).toContain(message);
      expect(checked.stdout).toBe("");
      const served = await runLongbox(["serve", "--config", path], { cwd: dir, env });
      expect(served.code).toBe(2);
      expect(served.stderr).toBe(checked.stderr);
      expect(checked.stderr + served.stdout + served.stderr).not.toContain(s3.secret_access_key);
    }
    // Credentials left out of the file may come from the environment, as Bun's S3 client takes them.
    const files = await effective(`files:\n  storage: s3\n  s3: ${JSON.stringify({ bucket: "longbox" })}\n`, {
      AWS_ACCESS_KEY_ID: "KEY-ID",
      S3_SECRET_ACCESS_KEY: "s3-secret-never-printed",
    });
    expect(files.files.s3).toMatchObject({ bucket: "longbox", access_key_id: "", secret_access_key: "" });
  });

  test("an email password without a username stops with exit 2", async () => {
    const { path } = configDir("email:\n  smtp_host: mail.example.org\n  smtp_password: mailpw\n");
    const result = await runLongbox(["config", "check", "--config", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("email.smtp_password is set without email.smtp_username");
    expect(result.stderr).not.toContain("mailpw");
    const withUser = await runLongbox(["config", "check", "--config", path], { env: { SERVICE_EMAIL__SMTP_USERNAME: "longbox" } });
    expect(withUser.code).toBe(0);
  });
});

describe("command line", () => {
  test("--version and --help", async () => {
    const version = await runLongbox(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`longbox ${VERSION}\ncommit none (run from source)\ntarget source (${process.platform}-${process.arch})\nbun ${Bun.version}\n`);
    const help = await runLongbox(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("longbox user create");
  });

  test("bad usage exits 2 with the reason on stderr", async () => {
    const unknown = await runLongbox(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const badFlag = await runLongbox(["serve", "--no-such-flag"]);
    expect(badFlag.code).toBe(2);
    const badPort = await runLongbox(["serve", "--port", "http"]);
    expect(badPort.code).toBe(2);
  });

  test("first start creates the config file, a 0600 JWT secret and a 0600 encryption key, then stops cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "longbox-first-run-"));
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "src", "main.ts"), "serve", "--port", "0"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = child.stdout.getReader();
    let output = "";
    while (!/longbox listening[^\n]*\n/.test(output)) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    // Bound to every interface (the default 0.0.0.0): the line names each address to open, loopback first.
    const listening = output.split("\n").find((line) => line.includes("longbox listening"))!;
    const port = /url=http:\/\/127\.0\.0\.1:(\d+)/.exec(listening)![1];
    const ipv4 = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []).filter((entry) => entry.family === "IPv4");
    expect(ipv4.length).toBeGreaterThanOrEqual(1);
    for (const entry of ipv4) expect(listening).toContain(`http://${entry.address}:${port}`);
    expect(listening).toMatch(/addresses="?http:\/\/127\.0\.0\.1:/);
    expect(output).toContain("generated a new JWT signing secret");
    expect(existsSync(join(dir, "config", "config.yaml"))).toBe(true);
    const secretFile = join(dir, "data", "jwt-secret");
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(secretFile, "utf8").trim().length).toBeGreaterThanOrEqual(43);
    expect(output).not.toContain(readFileSync(secretFile, "utf8").trim());
    expect(output).toContain("generated a new key for the secrets stored in the database");
    const keyFile = join(dir, "data", "encryption-key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, "utf8").trim()).not.toBe(readFileSync(secretFile, "utf8").trim());
    expect(output).not.toContain(readFileSync(keyFile, "utf8").trim());
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  });
});

function dir_(): string {
  return mkdtempSync(join(tmpdir(), "longbox-data-"));
}

/** Holds `port` on every address, unless another program holds it already; either way it is taken until `release`. */
function takePort(port: number): { release(): void } {
  try {
    const listener = Bun.listen({ hostname: "0.0.0.0", port, socket: { data() {} } });
    return { release: () => listener.stop(true) };
  } catch {
    return { release: () => undefined };
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`defaults of a configuration that sets no port and no paths [${kind}]`, () => {
    test("port 8080, data/longbox.db, data/thumbnails and data/covers under the working directory", async () => {
      const cwd = mkdtempSync(join(tmpdir(), "longbox-defaults-"));
      // Only what is not under test: one process, fast password hashing.
      mkdirSync(join(cwd, "config"));
      writeFileSync(join(cwd, "config", "config.yaml"), JSON.stringify({ application: { workers: 1 }, auth: TEST_AUTH }));
      const database = await createTestDatabase(kind, join(cwd, "unused"));
      // On PostgreSQL the database comes from the environment; the file still sets no path.
      const env: Record<string, string> =
        kind === "postgres" ? { SERVICE_DATABASE__TYPE: "postgres", SERVICE_DATABASE__POSTGRES__URL: (database.target as { postgresUrl: string }).postgresUrl } : {};
      let server: ServerProcess | undefined;
      try {
        const checked = await runLongbox(["config", "check"], { cwd, env });
        expect(checked.code).toBe(0);
        const effective = JSON.parse(checked.stdout.replace(/^#.*\n/, ""));
        expect(effective.application).toMatchObject({ host: "0.0.0.0", port: 8080, data_dir: "data" });
        expect(effective.database.sqlite.path).toBe("");
        expect(effective.files).toMatchObject({ thumbnail_dir: "", cover_dir: "" });

        // The port the server itself binds, whether or not another program on this machine uses
        // 8080: with the port taken, a start without --port fails on 8080.
        const port = takePort(8080);
        try {
          const refused = await runLongbox(["serve"], { cwd, env, timeoutMs: 30_000 });
          expect(refused.code).toBe(1);
          expect(refused.stderr).toContain("Is port 8080 in use?");
        } finally {
          port.release();
        }
        // The rest on a free port.
        const command = [process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--port", "0"];
        server = await startServerProcess(command, { cwd, env: { PATH: process.env.PATH ?? "", ...env } });

        const call = processClient(server.url);
        const client = jsonClient(server.url);
        const request = requester(server.url);
        expect((await call("POST", "/api/v1/setup", undefined, { username: "admin", email: "admin@example.org", password: "correct horse" })).status).toBe(201);
        const token = (await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: "correct horse" })).body.token;
        const root = tempFolder();
        await makeCbz(join(root, "Solo", "Solo 1.cbz"));
        const library = await createLibrary(client, { authorization: `Bearer ${token}` }, { name: "defaults", path: root });
        expect((await scan(client, { authorization: `Bearer ${token}` }, library.id)).status).toBe("completed");
        const [book] = (await call("GET", `/api/v1/books?libraryId=${library.id}`, token)).body.data;
        expect((await request(`/api/v1/books/${book.id}/thumbnail`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
        const cover = new FormData();
        cover.append("file", new Blob([await sharp({ create: { width: 8, height: 8, channels: 3, background: "green" } }).png().toBuffer()], { type: "image/png" }), "c.png");
        expect((await request(`/api/v1/books/${book.id}/cover`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: cover })).status).toBe(204);

        expect(existsSync(join(cwd, "data", "longbox.db"))).toBe(kind === "sqlite");
        expect(filesUnder(join(cwd, "data", "thumbnails"))).toEqual([join(book.id.slice(0, 2), `${book.id}.webp`)]);
        expect(filesUnder(join(cwd, "data", "covers"))).toEqual([join("books", `${book.id}.webp`)]);
      } finally {
        server?.child.kill("SIGTERM");
        await server?.child.exited;
        await database.drop();
        rmSync(cwd, { recursive: true, force: true });
      }
    }, 60_000);
  });
}
