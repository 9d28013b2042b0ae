/**
 * The JWT signing secret, and masking of secrets for display.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "./load";
import { SECRET_KEYS, type Config } from "./schema";

export const MIN_SECRET_BYTES = 32;

/**
 * Returns the configured secret, or the one generated earlier into the data folder, or a new
 * one (written there with mode 0600). `generated` tells the caller to log that it happened.
 */
export function resolveJwtSecret(config: Config, secretFile: string): { secret: string; generated: boolean } {
  assertSecretsStrong(config);
  const configured = config.auth.jwt_secret;
  if (configured) return { secret: configured, generated: false };
  if (existsSync(secretFile)) {
    const stored = readFileSync(secretFile, "utf8").trim();
    if (Buffer.byteLength(stored, "utf8") < MIN_SECRET_BYTES) {
      throw new ConfigError(`the stored JWT secret in ${secretFile} is under ${MIN_SECRET_BYTES} bytes; delete the file to generate a new one`);
    }
    return { secret: stored, generated: false };
  }
  const secret = randomBytes(48).toString("base64url");
  mkdirSync(dirname(secretFile), { recursive: true });
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  chmodSync(secretFile, 0o600);
  return { secret, generated: true };
}

/** Refuses configured secrets too weak to use (`serve` and `config check` alike). */
export function assertSecretsStrong(config: Config): void {
  const configured = config.auth.jwt_secret;
  if (configured && Buffer.byteLength(configured, "utf8") < MIN_SECRET_BYTES) {
    throw new ConfigError(`auth.jwt_secret is too weak: it must be at least ${MIN_SECRET_BYTES} bytes (use e.g. \`openssl rand -base64 48\`)`);
  }
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
