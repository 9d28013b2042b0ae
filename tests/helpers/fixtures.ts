/**
 * The shared fixture corpus (real-world books, described in its SOURCES.md). It sits in a
 * `shared/fixtures` folder beside one of the project's parent folders: found by walking up,
 * because a git worktree sits deeper than the main checkout. LONGBOX_FIXTURES overrides it.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { PROJECT_ROOT } from "./cli";

function findFixtures(): string {
  const override = process.env.LONGBOX_FIXTURES;
  if (override) return resolve(override);
  for (let folder = dirname(PROJECT_ROOT); ; folder = dirname(folder)) {
    const candidate = join(folder, "shared", "fixtures");
    if (existsSync(candidate)) return candidate;
    if (dirname(folder) === folder) throw new Error(`no shared/fixtures folder above ${PROJECT_ROOT}; set LONGBOX_FIXTURES`);
  }
}

export const FIXTURES = findFixtures();

/** The absolute path of a fixture, given its path inside the corpus. */
export function fixture(relativePath: string): string {
  return join(FIXTURES, relativePath);
}
