/**
 * The secrets the service needs at start (the JWT signing secret, the database encryption key),
 * and masking of secrets for display.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError, MIN_SECRET_BYTES } from "./load";
import { SECRET_KEYS, type Config } from "./schema";

/** A secret the service needs at start, and where it comes from when the configuration has none. */
interface SecretSource {
  /** What the secret is, for messages. */
  what: string;
  configured: string;
  /** Where a generated secret is kept, in the data folder. */
  file: string;
}

/**
 * Returns the configured secret (loadConfig has refused a weak one), or the one generated earlier
 * into the data folder, or a new one (written there with mode 0600). `generated` tells the
 * caller to log that it happened.
 */
function resolveSecret({ what, configured, file }: SecretSource): { secret: string; generated: boolean } {
  if (configured) return { secret: configured, generated: false };
  if (existsSync(file)) {
    const stored = readFileSync(file, "utf8").trim();
    if (Buffer.byteLength(stored, "utf8") < MIN_SECRET_BYTES) {
      throw new ConfigError(`the stored ${what} in ${file} is under ${MIN_SECRET_BYTES} bytes; delete the file to generate a new one`);
    }
    return { secret: stored, generated: false };
  }
  const secret = randomBytes(48).toString("base64url");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { secret, generated: true };
}

/** The JWT signing secret: auth.jwt_secret, else `<data_dir>/jwt-secret`. */
export function resolveJwtSecret(config: Config, secretFile: string): { secret: string; generated: boolean } {
  return resolveSecret({ what: "JWT secret", configured: config.auth.jwt_secret, file: secretFile });
}

/**
 * The key that encrypts secrets stored in the database (src/auth/secret-box.ts):
 * encryption_key (SERVICE_ENCRYPTION_KEY), else `<data_dir>/encryption-key`.
 */
export function resolveEncryptionKey(config: Config, keyFile: string): { secret: string; generated: boolean } {
  return resolveSecret({ what: "encryption key", configured: config.encryption_key, file: keyFile });
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
