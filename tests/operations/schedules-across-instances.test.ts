/**
 * One scheduler across instances: two instances with jobs on one PostgreSQL database, a library
 * with a cron schedule (every 2 seconds, six-field cron) and scan-on-start. Each fire of the
 * schedule queues exactly one scan (no instance runs a fire the other already ran), and
 * instances started together scan the library on start once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PASSWORD } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { makeCbz, tempFolder } from "../helpers/library";
import { processClient, waitFor } from "../helpers/server-processes";
import { queryDatabase } from "../helpers/sql";

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("cron schedules across instances [postgres]", () => {
  let instances: Instances;
  let libraryRoot: string;
  const start = () => instances.start();

  beforeAll(async () => {
    instances = await instancesOnOneDatabase("postgres", { logging: { level: "debug" } });
    libraryRoot = tempFolder();
    await makeCbz(join(libraryRoot, "Series", "Issue 1.cbz"), { seed: 70_001, pages: 1 });
  }, 60_000);
  afterAll(async () => instances?.stop());

  test("each fire of a schedule queues one scan; scan-on-start runs once for instances started together", async () => {
    // The library exists before the two instances start, so both see its scan-on-start.
    const first = await start();
    const call = processClient(first.url);
    await call("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD });
    const { body: session } = await call("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    const token = session.token as string;
    const { status, body: library } = await call("POST", "/api/v1/libraries", token, {
      name: "scheduled",
      path: libraryRoot,
      scanningConfig: { enabled: false, scanOnStart: true },
    });
    expect(status).toBe(201);
    first.child.kill("SIGTERM");
    await first.child.exited;

    // Both start within one minute (the scan-on-start key): not in a minute's last seconds.
    while (new Date().getUTCSeconds() > 45) await Bun.sleep(200);
    const [a, b] = await Promise.all([start(), start()]);
    const scans = (trigger: string) =>
      queryDatabase(instances.database.target, `SELECT id FROM scans WHERE library_id = '${library.id}' AND trigger = '${trigger}'`);
    await waitFor(async () => (await scans("startup")).length > 0, "the scan on start");

    // Every 2 seconds on both instances (they re-read the libraries every 5 s). The API takes the
    // specification's five-field cron only, so the six-field one (seconds first, which the cron
    // package runs) is written into the library row.
    const setSchedule = (enabled: boolean) =>
      queryDatabase(
        instances.database.target,
        `UPDATE libraries SET scanning_config = scanning_config || '{"enabled": ${enabled}, "cronSchedule": "*/2 * * * * *"}'::jsonb WHERE id = '${library.id}'`,
      );
    await setSchedule(true);
    const fires = async () =>
      (await queryDatabase(instances.database.target, `SELECT fire_at FROM job_fires WHERE job = 'scan-schedule:${library.id}'`)).length;
    await waitFor(async () => (await fires()) >= 4, "four fires of the schedule", 30_000);
    await setSchedule(false);
    await Bun.sleep(6000); // both instances have dropped the schedule (5 s re-read) and ended its last scan

    const output = a.output() + b.output();
    // Both instances tick for every fire: one runs it, the other finds it claimed.
    expect(output).toContain("scheduled job skipped: another process runs this fire");
    expect(output).not.toContain("scheduled scan skipped: one is already pending or running");
    expect((await scans("schedule")).length).toBe(await fires());
    expect(await scans("startup")).toHaveLength(1);
  }, 120_000);
});
