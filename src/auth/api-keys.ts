/**
 * API keys for automation: `lbx_` + 16 hex (the lookup prefix, stored in clear) + `_` + 32 hex
 * (the secret). The database holds the prefix and the SHA-256 of the whole key; the key itself
 * is shown once, at creation. A key is looked up by its prefix and then its digest is compared
 * in constant time.
 *
 * A key has a scope: "full" keys may do what their owner may, except create or change
 * credentials (that needs an interactive sign-in, see ./authenticator.ts); "reader" keys, for
 * OPDS apps, Mihon and KOReader, read what their owner may see and record reading progress.
 */
import type { ApiKeyRecord, ApiKeyScope, Repositories, UserRecord } from "../db";
import { isUuid } from "../db";
import { invalidFields, notFound } from "../errors";
import type { CredentialRevocations } from "./credential-revocation";
import { randomHex, sameDigest, sha256Hex } from "./token-digest";

export interface ApiKeyDto {
  id: string;
  name: string;
  keyPrefix: string;
  scope: ApiKeyScope;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export interface CreatedApiKey {
  apiKey: ApiKeyDto;
  /** The full key; never retrievable again. */
  key: string;
}

const KEY_FORMAT = /^(lbx_[0-9a-f]{16})_[0-9a-f]{32}$/;
/** Writing last-used on every request would turn each read into a write; minute precision is plenty. */
const LAST_USED_RESOLUTION_MS = 60_000;

export const looksLikeApiKey = (value: string): boolean => value.startsWith("lbx_");

export function toApiKeyDto(key: ApiKeyRecord): ApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    scope: key.scope,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  };
}

export class ApiKeyService {
  constructor(
    private readonly repositories: Repositories,
    private readonly revocations: CredentialRevocations,
  ) {}

  async create(userId: string, name: string, expiresAt: Date | null, scope: ApiKeyScope = "full"): Promise<CreatedApiKey> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 100) throw invalidFields("BadRequest", { name: "must be 1 to 100 characters" });
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw invalidFields("UnprocessableEntity", { expiresAt: "must be in the future" });
    }
    const keyPrefix = `lbx_${randomHex(8)}`;
    const key = `${keyPrefix}_${randomHex(16)}`;
    const record = await this.repositories.apiKeys.insert({ userId, name: trimmed, keyPrefix, keyHash: sha256Hex(key), scope, expiresAt });
    return { apiKey: toApiKeyDto(record), key };
  }

  async list(userId: string): Promise<ApiKeyDto[]> {
    return (await this.repositories.apiKeys.listOfUser(userId)).map(toApiKeyDto);
  }

  /** Deletes the key; every process stops accepting it at once (./credential-revocation.ts). */
  async revoke(userId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repositories.apiKeys.deleteOfUser(id, userId))) throw notFound("API key");
    this.revocations.announce(userId);
  }

  /** The owner and scope of a valid, unexpired key, recording its use; null for anything else. */
  async ownerOf(key: string): Promise<{ user: UserRecord; scope: ApiKeyScope } | null> {
    const prefix = KEY_FORMAT.exec(key)?.[1];
    if (!prefix) return null;
    const record = await this.repositories.apiKeys.findByPrefix(prefix);
    if (!record || !sameDigest(record.keyHash, sha256Hex(key))) return null;
    const now = new Date();
    if (record.expiresAt && record.expiresAt <= now) return null;
    if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.repositories.apiKeys.recordUse(record.id, now);
    }
    const user = await this.repositories.users.findForRequest(record.userId);
    return user ? { user, scope: record.scope } : null;
  }
}
