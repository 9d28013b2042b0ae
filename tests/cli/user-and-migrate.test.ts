import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLongbox } from "../helpers/cli";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../helpers/databases";
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
