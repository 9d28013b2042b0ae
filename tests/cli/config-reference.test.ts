import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configReferenceTable } from "../../src/config/reference";
import { PROJECT_ROOT } from "../helpers/cli";

test("the README's configuration reference lists every key with its default", () => {
  const readme = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
  expect(readme).toContain(configReferenceTable());
});
