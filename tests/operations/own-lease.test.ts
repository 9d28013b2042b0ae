/**
 * A lone instance whose own lease expired while it could not renew it (what a database outage
 * leaves: a scan still `running` under this process's name, its lease past) claims it back as
 * its own: it does not log a takeover ("its owner's lease expired") nor count one.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { INSTANCE_ID } from "../../src/jobs/leased-jobs";
import { adminSession, bearer } from "../helpers/auth";
import { createLibrary, makeCbz, scan, tempFolder, waitForScan } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

forEachDatabase("a lease of this process's own, expired", (server) => {
  let admin: Record<string, string>;
  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
  });

  test("is claimed back as its own, not taken over", async () => {
    const root = tempFolder();
    await makeCbz(join(root, "Series", "Book 1.cbz"), { pages: 2, seed: 1 });
    const { id } = await createLibrary(server(), admin, { name: "own lease", path: root });
    const first = await scan(server(), admin, id);
    expect(first.status).toBe("completed");
    const past = new Date(Date.now() - 60_000);
    const logsBefore = server().logs.length;
    await rawQuery(
      server(),
      "UPDATE scans SET status = 'running', owner = $1, lease_expires_at = $2, completed_at = NULL WHERE id = $3",
      INSTANCE_ID,
      server().kind === "sqlite" ? past.getTime() : past,
      first.scanId,
    );
    expect((await waitForScan(server(), admin, id, first.scanId)).status).toBe("completed");
    const lines = server().logs.slice(logsBefore).filter((line) => line.includes(first.scanId));
    expect(lines.some((line) => line.includes("scan started again: its lease, this process's own, expired"))).toBe(true);
    expect(lines.filter((line) => line.includes("taken over"))).toEqual([]);
    const [row] = await rawQuery(server(), "SELECT takeovers FROM scans WHERE id = $1", first.scanId);
    expect(Number(row!.takeovers)).toBe(0);
  }, 60_000);
});
