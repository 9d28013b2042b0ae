/**
 * A SQLite database that cannot be written (issue #11, items 5 and 6), on a small tmpfs of the
 * test's own (the test needs root): a start on a read-only data folder exits non-zero with the
 * reason instead of serving; on a full disk /health reports the database unhealthy, writes answer 507 with
 * Retry-After, the cause is logged once as what it is, and all passes when space returns; a
 * scan queued again while the disk stays full shows when it will try again and backs off
 * (issue #28, item 4).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { runLongbox } from "../helpers/cli";
import { fillDisk, readOnly, smallDisk, unmountDisks } from "../helpers/disks";
import { createLibrary, makeCbz, scan, tempFolder, waitForScan } from "../helpers/library";
import { startTestServer, TEST_AUTH, type TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

afterAll(unmountDisks);

describe("a read-only data folder", () => {
  test("a start that cannot write its database exits non-zero with the reason, instead of serving", async () => {
    const dir = tempFolder();
    const database = join(dir, "data", "longbox.db");
    const configPath = join(dir, "config.yaml");
    writeFileSync(
      configPath,
      JSON.stringify({
        application: { host: "127.0.0.1", port: 0, workers: 1, data_dir: join(dir, "data") },
        auth: { ...TEST_AUTH, jwt_secret: "a-configured-secret-so-no-file-is-written-0123456789" },
        logging: { level: "info" },
      }),
    );
    expect((await runLongbox(["migrate", "--config", configPath])).code).toBe(0);
    // The database file becomes read-only (its folder stays writable): SQLite then opens it
    // read-only without complaint, and only writes fail.
    readOnly(database);
    // A start that kept running instead is killed when the wait gives up, and exits otherwise than 1.
    const result = await runLongbox(["serve", "--config", configPath, "--port", "0"], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the SQLite database ${database} cannot be migrated or written`);
    expect(result.stderr).toContain("readonly");
    expect(result.stdout + result.stderr).not.toContain("longbox listening");
  }, 40_000);
});

describe("a database that becomes unwritable while running", () => {
  let disk: string;
  let server: TestServer;
  let admin: Record<string, string>;

  beforeAll(async () => {
    disk = smallDisk(24);
    mkdirSync(join(disk, "data"));
    server = await startTestServer("sqlite", {
      application: { data_dir: join(disk, "data") },
      database: { type: "sqlite", sqlite: { path: join(disk, "data", "longbox.db") } },
    });
    admin = bearer((await adminSession(server)).token);
  });
  afterAll(async () => {
    await server?.stop();
    unmountDisks();
  });

  test("a full disk: /health unhealthy, writes answer 507 with Retry-After, logged once as a full disk; space returning ends it", async () => {
    expect((await server.json("GET", "/health")).body).toMatchObject({ status: "ok", database: "ok" });
    const filler = join(disk, "filler");
    fillDisk(filler);
    const statuses: number[] = [];
    let full: Awaited<ReturnType<TestServer["json"]>> | undefined;
    for (let n = 0; n < 40 && statuses.filter((status) => status === 507).length < 3; n++) {
      const created = await server.json(
        "POST",
        "/api/v1/users",
        { username: `user${n}`, email: `user${n}@example.org`, password: "correct horse battery", role: "user", notes: "x".repeat(5000) },
        admin,
      );
      statuses.push(created.status);
      if (created.status === 507) full = created;
    }
    expect(statuses).toContain(507);
    expect(statuses).not.toContain(500);
    expect(full!.headers.get("retry-after")).toBe("5");
    expect((full!.body as { message: string }).message).toContain("disk is full");
    const logs = server.logs.join("\n");
    expect(logs.match(/database unavailable \(disk_full\)/g)).toHaveLength(1);
    expect(logs).not.toContain("cannot rollback");
    const health = await server.json("GET", "/health");
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: "error", database: "unwritable" });

    rmSync(filler);
    const after = await server.json("POST", "/api/v1/users", { username: "afterwards", email: "afterwards@example.org", password: "correct horse battery", role: "user" }, admin);
    expect(after.status).toBe(201);
    expect((await server.json("GET", "/health")).status).toBe(200);
  });

  test("a scan queued again while the disk stays full shows when it will try again, never a time past, backs off, and runs once space returns", async () => {
    const root = tempFolder();
    await makeCbz(join(root, "Series", "Book 1.cbz"), { pages: 2, seed: 1 });
    const { id } = await createLibrary(server, admin, { name: "full disk", path: root });
    const first = await scan(server, admin, id);
    // As a scan stopped by the full disk is left: pending, to run again in a second.
    await rawQuery(
      server,
      "UPDATE scans SET status = 'pending', retries = 1, run_after = $1, completed_at = NULL, failure_reason = $2 WHERE id = $3",
      Date.now() + 1000,
      "the database's disk is full; retry 1 of 3",
      first.scanId,
    );
    const filler = join(disk, "filler");
    fillDisk(filler);

    const retryTimes: number[] = [];
    const deadline = Date.now() + 25_000;
    while (Date.now() < deadline) {
      const { body } = await server.json("GET", `/api/v1/libraries/${id}/scan-status`, undefined, admin);
      expect(body.status).toBe("pending");
      const shown = / at (\S+)$/.exec(body.failureReason ?? "");
      expect(shown, `a retry time in: ${body.failureReason}`).not.toBeNull();
      const at = Date.parse(shown![1]!);
      // The time shown is never one already past (a second's slack: the worker looks every second).
      expect(at).toBeGreaterThan(Date.now() - 1500);
      if (retryTimes.at(-1) !== at) retryTimes.push(at);
      await Bun.sleep(500);
    }
    // The worker looked again and again, each time waiting longer.
    expect(retryTimes.length).toBeGreaterThanOrEqual(3);
    const gaps = retryTimes.slice(1).map((at, index) => at - retryTimes[index]!);
    for (let index = 1; index < gaps.length; index++) expect(gaps[index]!).toBeGreaterThan(gaps[index - 1]!);

    rmSync(filler);
    expect((await waitForScan(server, admin, id, first.scanId, 90_000)).status).toBe("completed");
  }, 150_000);
});
