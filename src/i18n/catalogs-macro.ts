/**
 * Build-time macro: reads the message catalogs (./messages/<locale>.json) while Bun bundles or
 * transpiles the code, so they are inlined into the program (the single executable needs no
 * file beside it) and a translator adds a language by dropping one file into ./messages.
 * Imported `with { type: "macro" }` from ./catalogs.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const MESSAGES_FOLDER = join(import.meta.dir, "messages");

/** Every catalog by its locale (the file name without `.json`), each a flat map of id → ICU message. */
export function embeddedCatalogs(): Record<string, Record<string, string>> {
  const catalogs: Record<string, Record<string, string>> = {};
  for (const file of readdirSync(MESSAGES_FOLDER).filter((name) => name.endsWith(".json")).sort()) {
    catalogs[file.replace(/\.json$/, "")] = JSON.parse(readFileSync(join(MESSAGES_FOLDER, file), "utf8"));
  }
  return catalogs;
}
