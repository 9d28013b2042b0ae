/**
 * The configuration reference as a Markdown table, generated from the schema so the README
 * cannot drift from the code (tests/cli/config-reference.test.ts compares them).
 * Print it with `bun scripts/config-reference.ts`.
 */
import { Kind, type TSchema } from "@sinclair/typebox";
import { ConfigSchema } from "./schema";

export function configReferenceTable(): string {
  const rows = ["| key | type | default | environment override |", "|---|---|---|---|"];
  walk(ConfigSchema, [], rows);
  return rows.join("\n");
}

function walk(schema: TSchema, path: string[], rows: string[]): void {
  if (schema[Kind] === "Object") {
    for (const [key, child] of Object.entries(schema.properties as Record<string, TSchema>)) walk(child, [...path, key], rows);
    return;
  }
  const key = path.join(".");
  const env = `SERVICE_${path.join("__").toUpperCase()}`;
  rows.push(`| \`${key}\` | ${typeName(schema)} | ${defaultText(key, schema)} | \`${env}\` |`);
}

function typeName(schema: TSchema): string {
  if (schema[Kind] === "Union") return (schema.anyOf as TSchema[]).map((option) => `\`${option.const}\``).join(" \\| ");
  if (schema[Kind] === "Array") return "list (JSON in the environment)";
  return String(schema[Kind]).toLowerCase();
}

function defaultText(key: string, schema: TSchema): string {
  if (key === "scanner.concurrency" || key === "files.thumbnail_concurrency") return "number of CPU cores";
  const value = schema.default;
  if (value === undefined) return "required";
  if (value === "") return "(empty)";
  return `\`${JSON.stringify(value)}\``;
}
