import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLongbox } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../helpers/databases";
import { FIXTURES } from "../helpers/fixtures";
import { startTestServer, TEST_AUTH } from "../helpers/server";

for (const kind of DATABASE_KINDS) {
  describe(`longbox migrate and user create [${kind}]`, () => {
    let database: TestDatabase;
    let configPath: string;

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), "longbox-cli-"));
      database = await createTestDatabase(kind, join(dir, "data"));
      configPath = join(dir, "config.yaml");
      writeFileSync(
        configPath,
        JSON.stringify({ application: { data_dir: join(dir, "data") }, database: database.config, auth: TEST_AUTH }),
      );
    });
    afterAll(async () => database.drop());

    test("migrate applies the schema and is idempotent", async () => {
      const first = await runLongbox(["migrate", "--config", configPath]);
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      const second = await runLongbox(["migrate", "--config", configPath]);
      expect(second.code).toBe(0);
    });

    test("user create --admin makes an admin; a short password is exit 2", async () => {
      const weak = await runLongbox(["user", "create", "--username", "boss", "--password", "short", "--admin", "--config", configPath]);
      expect(weak.code).toBe(2);
      expect(weak.stderr).toContain("password");

      const made = await runLongbox([
        "user", "create", "--username", "boss", "--email", "boss@example.org", "--password", "long enough", "--admin",
        "--config", configPath,
      ]);
      expect(made.stderr).toBe("");
      expect(made.code).toBe(0);
      expect(made.stdout).toContain("created admin boss");

      const duplicate = await runLongbox(["user", "create", "--username", "boss", "--password", "long enough", "--config", configPath]);
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain("already exists");
    });

    test("settings that only serve uses stop neither migrate, user create nor analyze; serve and config check refuse them", async () => {
      const dir = mkdtempSync(join(tmpdir(), "longbox-cli-serve-only-"));
      mkdirSync(join(dir, "data"));
      // A key file an earlier start would have written, cut short.
      writeFileSync(join(dir, "data", "encryption-key"), "cut-short\n");
      const serveOnly = {
        application: { data_dir: join(dir, "data"), base_url: "books.example.org/longbox" },
        database: database.config,
        auth: { ...TEST_AUTH, jwt_secret: "too-short" },
        email: { smtp_password: "mailpw" },
        // No credentials here, and none in the environment (runLongbox passes PATH and HOME only).
        files: { storage: "s3", s3: { bucket: "longbox", endpoint: "http://127.0.0.1:9" } },
      };
      const path = join(dir, "config.yaml");
      writeFileSync(path, JSON.stringify(serveOnly));

      const migrated = await runLongbox(["migrate", "--config", path]);
      expect(migrated.stderr).toBe("");
      expect(migrated.code).toBe(0);
      const made = await runLongbox(["user", "create", "--username", "reader", "--password", "long enough", "--config", path]);
      expect(made.stderr).toBe("");
      expect(made.code).toBe(0);
      expect(made.stdout).toContain("created user reader");
      const analyzed = await runLongbox(["analyze", join(FIXTURES, "cbz/comicbox/Captain Science #001.cbz"), "--config", path]);
      expect(analyzed.stderr).toBe("");
      expect(analyzed.code).toBe(0);
      expect(JSON.parse(analyzed.stdout).pageCount).toBe(5);

      const checked = await runLongbox(["config", "check", "--config", path]);
      expect(checked.code).toBe(2);
      expect(checked.stderr).toContain("application.base_url must be an absolute http(s) URL");
      const served = await runLongbox(["serve", "--config", path]);
      expect(served.code).toBe(2);
      expect(served.stderr).toBe(checked.stderr);
    });

    test("after user create, the HTTP setup is closed (409)", async () => {
      // A server on the same database sees the user the command line created.
      const server = await startTestServer(kind, {});
      try {
        const made = await runLongbox(["user", "create", "--username", "root", "--password", "long enough", "--admin", "--config", server.configPath]);
        expect(made.code).toBe(0);
        const { status } = await server.json("POST", "/api/v1/setup", { username: "late", password: "long enough" });
        expect(status).toBe(409);
      } finally {
        await server.stop();
      }
    });
  });
}
