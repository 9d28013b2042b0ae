/**
 * The shared fixture corpus (real-world books, described in its SOURCES.md). It sits in a
 * `shared/fixtures` folder beside one of the project's parent folders: found by walking up,
 * because a git worktree sits deeper than the main checkout.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROJECT_ROOT } from "./cli";

function findFixtures(): string {
  for (let folder = dirname(PROJECT_ROOT); ; folder = dirname(folder)) {
    const candidate = join(folder, "shared", "fixtures");
    if (existsSync(candidate)) return candidate;
    if (dirname(folder) === folder) throw new Error(`no shared/fixtures folder above ${PROJECT_ROOT}`);
  }
}

export const FIXTURES = findFixtures();
