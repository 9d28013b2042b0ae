/**
 * Third-party format plugins, loaded once at start from the `plugins.dir` folder. Each entry
 * of the folder is one plugin: a `.ts`/`.js` file, or a subfolder with an index file, whose
 * default export is a FormatPlugin. See docs/plugins.md.
 */
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FormatPlugin } from "./contract.ts";

export class PluginLoadError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`Format plugin ${file}: ${problem}`);
    this.name = "PluginLoadError";
  }
}

const PLUGIN_FILE = /\.(ts|js|mjs)$/;
const DECLARATION_FILE = /\.d\.ts$/;
const INDEX_FILES = ["index.ts", "index.js", "index.mjs"];
const PLUGIN_ID = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Imports every plugin in `dir`, in name order. A missing folder means no third-party plugins.
 * Throws PluginLoadError, naming the file, for the first plugin that fails to load or is
 * not a valid FormatPlugin: a broken plugin should stop the start, not be silently skipped.
 */
export async function loadPlugins(dir: string): Promise<FormatPlugin[]> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(root)).sort();
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
    throw error;
  }
  const plugins: FormatPlugin[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const entry = await pluginEntryFile(join(root, name));
    if (entry) plugins.push(await loadPlugin(entry));
  }
  return plugins;
}

/** Imports one plugin file and checks that its default export is a FormatPlugin. */
export async function loadPlugin(file: string): Promise<FormatPlugin> {
  let module: { default?: unknown };
  try {
    module = (await import(file)) as { default?: unknown };
  } catch (error) {
    throw new PluginLoadError(file, `cannot be imported: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problems = formatPluginProblems(module.default);
  if (problems.length > 0) throw new PluginLoadError(file, `its default export is not a valid FormatPlugin: ${problems.join("; ")}`);
  return module.default as FormatPlugin;
}

/** What is wrong with a value that should be a FormatPlugin (empty when nothing is). */
export function formatPluginProblems(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return ["there is no default export object"];
  const plugin = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof plugin.id !== "string" || !PLUGIN_ID.test(plugin.id)) {
    problems.push("`id` must be a lower-case identifier such as \"cbt\"");
  }
  if (typeof plugin.name !== "string" || plugin.name === "") problems.push("`name` must be a non-empty string");
  if (!isStringArray(plugin.extensions) || plugin.extensions.some((extension) => !/^[a-z0-9]+$/.test(extension))) {
    problems.push("`extensions` must be an array of lower-case extensions without the dot");
  }
  if (!isStringArray(plugin.mediaTypes) || plugin.mediaTypes.length === 0) {
    problems.push("`mediaTypes` must be a non-empty array of media types");
  }
  for (const method of ["detect", "analyze", "readPage"]) {
    if (typeof plugin[method] !== "function") problems.push(`\`${method}\` must be a function`);
  }
  if (plugin.rendersPages !== undefined && typeof plugin.rendersPages !== "boolean") problems.push("`rendersPages`, when present, must be a boolean");
  for (const method of ["thumbnail", "readResource", "publication"]) {
    if (plugin[method] !== undefined && typeof plugin[method] !== "function") problems.push(`\`${method}\`, when present, must be a function`);
  }
  return problems;
}

async function pluginEntryFile(path: string): Promise<string | null> {
  const info = await stat(path);
  if (info.isFile()) return PLUGIN_FILE.test(path) && !DECLARATION_FILE.test(path) ? path : null;
  if (!info.isDirectory()) return null;
  for (const index of INDEX_FILES) {
    const candidate = join(path, index);
    if (await Bun.file(candidate).exists()) return candidate;
  }
  throw new PluginLoadError(path, `the folder has no ${INDEX_FILES.join(" or ")}`);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
