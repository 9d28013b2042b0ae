/** Where the shared fixture corpus lives: ../shared/fixtures next to the project root. */
import { join, resolve } from "node:path";

export const PROJECT_ROOT = resolve(import.meta.dir, "..", "..");
export const FIXTURES = resolve(PROJECT_ROOT, "..", "shared", "fixtures");

export function fixture(relativePath: string): string {
  return join(FIXTURES, relativePath);
}
