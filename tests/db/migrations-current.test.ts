/**
 * The committed migrations must match the schema: drizzle-kit, run against a copy of the
 * migration folders, must find nothing to generate. Fails when define.ts changed without
 * `npm run db:generate`.
 */
import { expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PROJECT_ROOT } from "../helpers/cli";

for (const [dialect, folder] of [["sqlite", "sqlite"], ["postgresql", "pg"]] as const) {
  test(`${dialect} migrations are generated from the current schema`, async () => {
    const out = join(mkdtempSync(join(tmpdir(), "longbox-migrations-")), folder);
    cpSync(join(PROJECT_ROOT, "src", "db", "migrations", folder), out, { recursive: true });
    const before = readdirSync(out).sort();
    const child = Bun.spawn(
      [
        join(PROJECT_ROOT, "node_modules", ".bin", "drizzle-kit"), "generate", "--dialect", dialect,
        "--schema", `./src/db/schema/${folder}.ts`, "--out", relative(PROJECT_ROOT, out)],
      { cwd: PROJECT_ROOT, stdout: "pipe", stderr: "pipe" },
    );
    const output = (await new Response(child.stdout).text()) + (await new Response(child.stderr).text());
    expect(await child.exited).toBe(0);
    expect(output).toContain("No schema changes");
    expect(readdirSync(out).sort()).toEqual(before);
  }, 60_000);
}
