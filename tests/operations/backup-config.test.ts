import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLongbox } from "../helpers/cli";

/**
 * `backup` and `restore` work on an existing configuration only: with a mistyped --config they
 * used to write a default configuration there and back up (or restore into) the empty new
 * database it names. Nothing reaches a database here, so one run covers both kinds.
 */
for (const command of [["backup"], ["restore", "/nonexistent/longbox-backup.tar"]]) {
  test(`${command[0]} with a configuration file that does not exist says so and writes nothing`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "longbox-backup-config-"));
    const mistyped = join(dir, "config", "confg.yaml");
    const result = await runLongbox([...command, "--config", mistyped], { cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`configuration file not found: ${mistyped}`);
    expect(existsSync(mistyped)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
}
