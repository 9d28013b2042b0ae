/**
 * One dependency direction: HTTP slices -> services -> repositories (the only place drizzle and
 * the database drivers live) and format plugins. Parsed from the real imports, so an import
 * pointing the wrong way fails here.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Glob } from "bun";
import { PROJECT_ROOT } from "../helpers/cli";

const transpiler = new Bun.Transpiler({ loader: "ts" });

interface ImportEdge {
  from: string;
  to: string;
}

function importsOf(folder: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of new Glob("**/*.ts").scanSync(join(PROJECT_ROOT, folder))) {
    const from = join(folder, file);
    const source = readFileSync(join(PROJECT_ROOT, from), "utf8").replace(/^#!.*\n/, "");
    for (const { path } of transpiler.scanImports(source)) {
      const to = path.startsWith(".") ? relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(from), path)) : path;
      edges.push({ from, to });
    }
  }
  return edges;
}

const edges = [...importsOf("src"), ...importsOf("plugins")];
const violations = (rule: (edge: ImportEdge) => boolean) => edges.filter(rule).map((edge) => `${edge.from} -> ${edge.to}`);

test("drizzle and the database drivers are used only under src/db", () => {
  expect(
    violations((edge) => /^(drizzle-orm|postgres$|bun:sqlite)/.test(edge.to) && !edge.from.startsWith("src/db/")),
  ).toEqual([]);
});

/** The modules that wire the layers together (and so may know them all). */
const WIRING = new Set(["src/main.ts", "src/cli.ts", "src/server.ts", "src/services.ts"]);

test("nothing below the HTTP layer imports it", () => {
  expect(violations((edge) => edge.to.startsWith("src/http") && !edge.from.startsWith("src/http/") && !WIRING.has(edge.from))).toEqual([]);
});

test("repositories know nothing of services, HTTP or plugins", () => {
  const above = /^src\/(http|library|auth|access|jobs|events|operations|formats)\b|^plugins\//;
  expect(violations((edge) => edge.from.startsWith("src/db/") && above.test(edge.to) && !edge.to.startsWith("src/formats/contract"))).toEqual([]);
});

test("format plugins reach neither the database nor HTTP nor the services", () => {
  const forbidden = /^src\/(db|http|library|auth|access|jobs|events|operations)\b/;
  expect(violations((edge) => (edge.from.startsWith("plugins/") || edge.from.startsWith("src/formats/")) && forbidden.test(edge.to))).toEqual([]);
});
