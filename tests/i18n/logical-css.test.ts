/**
 * The style sheets place things by the writing direction (margin-inline-start, inset-inline-end,
 * text-align: start...), never by the physical left and right, so a right-to-left language can
 * be added without rewriting them (issue 35).
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const CSS = join(import.meta.dir, "../../static/css");
const PHYSICAL = /(?<![\w-])(?:(?:margin|padding|border)-(?:left|right)(?:-\w+)?|left|right|float|clear)\s*:|text-align\s*:\s*(?:left|right)|border-(?:top|bottom)-(?:left|right)-radius/;

test("no style sheet uses a physical left or right property", () => {
  const physical: string[] = [];
  for (const file of readdirSync(CSS).filter((name) => name.endsWith(".css"))) {
    readFileSync(join(CSS, file), "utf8")
      .split("\n")
      .forEach((line, index) => {
        if (PHYSICAL.test(line)) physical.push(`${file}:${index + 1}: ${line.trim()}`);
      });
  }
  expect(physical).toEqual([]);
});
