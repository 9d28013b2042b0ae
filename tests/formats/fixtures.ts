/**
 * Where the shared fixture corpus lives: `../shared/fixtures` next to the project root. A git
 * worktree sits deeper (/work/wt/<name>), so the nearest `shared/fixtures` above the project
 * root is used; LONGBOX_FIXTURES overrides the search.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const PROJECT_ROOT = resolve(import.meta.dir, "..", "..");

function findFixtures(): string {
  const override = process.env.LONGBOX_FIXTURES;
  if (override) return resolve(override);
  for (let dir = dirname(PROJECT_ROOT); ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "fixtures");
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`No shared/fixtures folder above ${PROJECT_ROOT}; set LONGBOX_FIXTURES`);
  }
}

export const FIXTURES = findFixtures();

export function fixture(relativePath: string): string {
  return join(FIXTURES, relativePath);
}
