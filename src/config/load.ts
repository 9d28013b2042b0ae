/**
 * Loads the effective configuration: the YAML file, the `config.local.yaml` overlay beside it,
 * then `SERVICE_<SECTION>__<KEY>` environment overrides, then defaults for whatever is left.
 * Values are never interpolated: `${VAR}` in the file stays that literal text.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { validateCronExpression } from "cron";
import { AVAILABLE_LOCALES, isAvailableLocale } from "../i18n/catalogs";
import { ConfigSchema, type Config } from "./schema";

/** A configuration problem: the process exits with code 2 and this message. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export const DEFAULT_CONFIG_PATH = "config/config.yaml";
const ENV_PREFIX = "SERVICE_";
/** SERVICE_* variables that are not configuration keys. */
const ENV_NOT_KEYS = new Set(["SERVICE_CONFIG"]);

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the main configuration file. */
  path: string;
  /** Things worth logging once the logger exists (file created, ignored variables). */
  notices: string[];
}

export interface LoadOptions {
  path?: string;
  env?: Record<string, string | undefined>;
  /** Write a default configuration file when none exists (true for `serve`). */
  createIfMissing?: boolean;
  /**
   * Use the defaults (and the environment) when the file does not exist, writing nothing:
   * for commands that read books, not the server's state (`analyze`).
   */
  defaultsIfMissing?: boolean;
}

type Tree = Record<string, unknown>;

export function configPathFrom(explicit: string | undefined, env: Record<string, string | undefined>): string {
  return resolve(explicit ?? env.SERVICE_CONFIG ?? DEFAULT_CONFIG_PATH);
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const path = configPathFrom(options.path, env);
  const notices: string[] = [];

  if (!existsSync(path)) {
    if (!options.createIfMissing && !options.defaultsIfMissing) throw new ConfigError(`configuration file not found: ${path}`);
    if (options.createIfMissing) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, DEFAULT_CONFIG_FILE);
      notices.push(`created a default configuration file at ${path}`);
    }
  }

  const tree: Tree = existsSync(path) ? readConfigFiles(path) : {};
  applyEnvironment(tree, env, notices);

  rejectUnknownKeys(tree, ConfigSchema, "");
  const withDefaults = Value.Default(ConfigSchema, tree) as Tree;
  const firstError = Value.Errors(ConfigSchema, withDefaults).First();
  if (firstError) {
    const key = pointerToKey(firstError.path);
    throw new ConfigError(`invalid configuration value for ${key || "(root)"}: ${firstError.message}`);
  }
  return { config: withDefaults as Config, path, notices };
}

/**
 * What the schema of one key cannot say about the settings only `serve` uses: values that must
 * parse, keys that need each other. Part of assertServable (src/server.ts), not of loadConfig:
 * `migrate`, `user create` and `analyze` do not use them, so they must not be stopped by them.
 */
export function rejectUnusableSettings(config: Config): void {
  const baseUrl = config.application.base_url;
  // Links, redirect URIs and paging paths are built from it (src/http/client-address.ts).
  if (baseUrl && !/^https?:$/.test(URL.parse(baseUrl)?.protocol ?? "")) {
    throw new ConfigError(`application.base_url must be an absolute http(s) URL such as https://books.example.org/longbox, got "${baseUrl}"`);
  }
  // SMTP authentication needs both; a password alone would be silently dropped (src/auth/mailer.ts).
  if (config.email.smtp_password && !config.email.smtp_username) {
    throw new ConfigError("email.smtp_password is set without email.smtp_username: SMTP authentication needs both (set the username, or remove the password)");
  }
  if (!isAvailableLocale(config.application.default_locale)) {
    throw new ConfigError(`application.default_locale must be a language with a catalog (${AVAILABLE_LOCALES.join(", ")}), got "${config.application.default_locale}"`);
  }
  const { schedule } = config.backup;
  if (schedule) {
    const { valid, error } = validateCronExpression(schedule);
    if (!valid) throw new ConfigError(`backup.schedule must be a cron expression such as "30 3 * * *" (or empty for none): ${error?.message ?? "invalid"}`);
  }
}

/** A PostgreSQL connection URL cut in three: the scheme and user, the host list, the rest. */
const POSTGRES_URL = /^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)([^/?#]*)(.*)$/i;

/**
 * Refuses (exit 2) a database.postgres.url that cannot name a PostgreSQL server. The driver
 * reads whatever follows "://" as user, hosts and database, whatever the scheme (a URL without
 * one becomes a garbled host name), and says only "Invalid URL" of one it cannot parse. It
 * takes a list of hosts ("h1:5432,h2:5432"), tried in turn: each must parse. The message never
 * repeats the URL, which may hold the password.
 */
export function rejectUnusableDatabase(config: Config): void {
  const { url } = config.database.postgres;
  if (config.database.type !== "postgres" || !url) return;
  const [, head, hosts, tail] = POSTGRES_URL.exec(url) ?? [];
  if (hosts === undefined || hosts.split(",").some((host) => !URL.parse(`${head}${host}${tail}`))) {
    throw new ConfigError(
      "database.postgres.url must be a PostgreSQL connection URL such as postgres://user:password@host:5432/database (special characters of the password percent-encoded)",
    );
  }
}

/** The configuration file with the `config.local.yaml` beside it merged on top. */
function readConfigFiles(path: string): Tree {
  const tree = readYamlObject(path);
  const overlayPath = join(dirname(path), "config.local.yaml");
  return existsSync(overlayPath) ? deepMerge(tree, readYamlObject(overlayPath)) : tree;
}

function readYamlObject(path: string): Tree {
  let parsed: unknown;
  try {
    parsed = Bun.YAML.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`cannot parse ${path}: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isTree(parsed)) throw new ConfigError(`${path} must hold a mapping of sections`);
  return parsed;
}

function isTree(value: unknown): value is Tree {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; scalars and lists from `top` replace those of `base`. */
export function deepMerge(base: Tree, top: Tree): Tree {
  const merged: Tree = { ...base };
  for (const [key, value] of Object.entries(top)) {
    const current = merged[key];
    merged[key] = isTree(current) && isTree(value) ? deepMerge(current, value) : value;
  }
  return merged;
}

function applyEnvironment(tree: Tree, env: Record<string, string | undefined>, notices: string[]): void {
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || ENV_NOT_KEYS.has(name) || raw === undefined) continue;
    const segments = name.slice(ENV_PREFIX.length).toLowerCase().split("__");
    const schema = schemaAt(ConfigSchema, segments);
    if (!schema) {
      // Not fatal: container platforms set SERVICE_* variables of their own.
      notices.push(`ignored environment variable ${name}: no configuration key ${segments.join(".")}`);
      continue;
    }
    setAt(tree, segments, coerce(raw, schema, name));
  }
}

function schemaAt(schema: TSchema, segments: string[]): TSchema | undefined {
  let current: TSchema | undefined = schema;
  for (const segment of segments) {
    if (!current || current[Kind] !== "Object") return undefined;
    current = (current.properties as Record<string, TSchema>)[segment];
  }
  return current;
}

function setAt(tree: Tree, segments: string[], value: unknown): void {
  let node = tree;
  for (const segment of segments.slice(0, -1)) {
    if (!isTree(node[segment])) node[segment] = {};
    node = node[segment] as Tree;
  }
  node[segments[segments.length - 1]!] = value;
}

function coerce(raw: string, schema: TSchema, name: string): unknown {
  switch (schema[Kind]) {
    case "Integer":
    case "Number": {
      const number = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(number)) throw new ConfigError(`${name} must be a number, got "${raw}"`);
      return number;
    }
    case "Boolean": {
      const lowered = raw.trim().toLowerCase();
      if (["true", "1", "yes", "on"].includes(lowered)) return true;
      if (["false", "0", "no", "off"].includes(lowered)) return false;
      throw new ConfigError(`${name} must be true or false, got "${raw}"`);
    }
    case "Array":
    case "Object":
      try {
        return JSON.parse(raw);
      } catch {
        throw new ConfigError(`${name} must be JSON for a list or mapping`);
      }
    default:
      return raw;
  }
}

function rejectUnknownKeys(value: unknown, schema: TSchema, prefix: string): void {
  if (schema[Kind] === "Array" && Array.isArray(value)) {
    value.forEach((item, index) => rejectUnknownKeys(item, schema.items as TSchema, `${prefix}[${index}]`));
    return;
  }
  if (schema[Kind] !== "Object" || !isTree(value)) return;
  const properties = schema.properties as Record<string, TSchema>;
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const childSchema = properties[key];
    if (!childSchema) throw new ConfigError(`unknown configuration key: ${path}`);
    rejectUnknownKeys(child, childSchema, path);
  }
}

function pointerToKey(pointer: string): string {
  return pointer
    .split("/")
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join("")
    .replace(/^\./, "");
}

const DEFAULT_CONFIG_FILE = `# Longbox configuration. Every key and its default is listed in README.md.
# Environment variables override this file: SERVICE_<SECTION>__<KEY>, e.g. SERVICE_APPLICATION__PORT=9090.
# A config.local.yaml beside this file is merged on top of it.
application:
  port: 8080
  data_dir: data
database:
  type: sqlite
logging:
  level: info
`;
