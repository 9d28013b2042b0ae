/**
 * The secrets the service needs at start (the JWT signing secret, the database encryption key),
 * and masking of secrets for display.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "./load";
import type { DataPaths } from "./paths";
import { SECRET_KEYS, type Config } from "./schema";

/** The least length of a secret (auth.jwt_secret, encryption_key, or the files generated for them), in bytes. */
const MIN_SECRET_BYTES = 32;

/** A secret the service needs at start, and where it comes from when the configuration has none. */
interface SecretSource {
  /** The configuration key, for messages. */
  key: string;
  /** What the secret is, for messages. */
  what: string;
  configured: string;
  /** Where a generated secret is kept, in the data folder. */
  file: string;
}

function secretSources(config: Config, paths: DataPaths) {
  return {
    jwt: { key: "auth.jwt_secret", what: "JWT secret", configured: config.auth.jwt_secret, file: paths.jwtSecretFile },
    encryption: { key: "encryption_key", what: "encryption key", configured: config.encryption_key, file: paths.encryptionKeyFile },
  } satisfies Record<string, SecretSource>;
}

/**
 * Refuses a secret too weak to use: a configured one, or, when none is configured, the one an
 * earlier start generated into the data folder (cut short by hand or by a full disk). Writes
 * nothing: `config check` runs it too (through assertServable).
 */
export function rejectWeakSecrets(config: Config, paths: DataPaths): void {
  for (const source of Object.values(secretSources(config, paths))) {
    if (source.configured && Buffer.byteLength(source.configured, "utf8") < MIN_SECRET_BYTES) {
      throw new ConfigError(`${source.key} is too weak: it must be at least ${MIN_SECRET_BYTES} bytes (use e.g. \`openssl rand -base64 48\`)`);
    }
    if (!source.configured) storedSecret(source);
  }
}

/**
 * The secret an earlier start kept in the data folder, if any; one too short is refused, and
 * one that cannot be read (`config check` run as another user than the server's: the file is
 * 0600, or the data folder cannot be searched) is a configuration error that says so, not a
 * raw system error or a secret silently taken for missing.
 */
function storedSecret({ what, file }: SecretSource): string | undefined {
  let stored: string;
  try {
    stored = readFileSync(file, "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "ENOENT") return undefined;
    const hint = code === "EACCES" || code === "EPERM" ? ": run this as the user the server runs as" : "";
    throw new ConfigError(`the stored ${what} in ${file} cannot be read (${code})${hint}`);
  }
  if (Buffer.byteLength(stored, "utf8") < MIN_SECRET_BYTES) {
    throw new ConfigError(`the stored ${what} in ${file} is under ${MIN_SECRET_BYTES} bytes; delete the file to generate a new one`);
  }
  return stored;
}

/**
 * Returns the configured secret, or the one generated earlier into the data folder, or a new one
 * (written there with mode 0600); rejectWeakSecrets has refused a weak one. `generated` tells
 * the caller to log that it happened.
 */
function resolveSecret(source: SecretSource): { secret: string; generated: boolean } {
  if (source.configured) return { secret: source.configured, generated: false };
  const stored = storedSecret(source);
  if (stored) return { secret: stored, generated: false };
  const secret = randomBytes(48).toString("base64url");
  mkdirSync(dirname(source.file), { recursive: true });
  writeFileSync(source.file, `${secret}\n`, { mode: 0o600 });
  chmodSync(source.file, 0o600);
  return { secret, generated: true };
}

/** The JWT signing secret: auth.jwt_secret, else `<data_dir>/jwt-secret`. */
export function resolveJwtSecret(config: Config, paths: DataPaths): { secret: string; generated: boolean } {
  return resolveSecret(secretSources(config, paths).jwt);
}

/**
 * The key that encrypts secrets stored in the database (src/auth/secret-box.ts):
 * encryption_key (SERVICE_ENCRYPTION_KEY), else `<data_dir>/encryption-key`.
 */
export function resolveEncryptionKey(config: Config, paths: DataPaths): { secret: string; generated: boolean } {
  return resolveSecret(secretSources(config, paths).encryption);
}

const MASK = "********";

/** A copy of the configuration with every secret replaced by a mask (empty secrets stay empty). */
export function maskSecrets(config: Config): Config {
  return maskTree(structuredClone(config), "") as Config;
}

function maskTree(value: unknown, path: string): unknown {
  if (Array.isArray(value)) return value.map((item) => maskTree(item, `${path}[]`));
  if (typeof value === "object" && value !== null) {
    const tree = value as Record<string, unknown>;
    for (const key of Object.keys(tree)) tree[key] = maskTree(tree[key], path ? `${path}.${key}` : key);
    return tree;
  }
  if (SECRET_KEYS.has(path) && typeof value === "string" && value !== "") {
    return path === "database.postgres.url" ? value.replace(/\/\/([^:@/]*):[^@]*@/, `//$1:${MASK}@`) : MASK;
  }
  return value;
}
