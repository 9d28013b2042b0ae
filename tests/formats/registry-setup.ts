/** The registry the format tests run against: the built-in plugins with default limits. */
import { FormatRegistry } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";

export const registry = new FormatRegistry(builtinPlugins, { timeoutMs: 10_000 });
