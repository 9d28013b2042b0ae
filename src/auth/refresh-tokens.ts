/**
 * Refresh tokens, following the specification's state table:
 *   active --refresh--> used (and a new active token of the same family is issued)
 *   used --presented again--> rejected, and every active token of the family is revoked
 *   active --logout--> revoked
 *   active or used --daily job, expired--> pruned (deleted)
 * A token is `rt_` + 43 base64url characters (32 random bytes); only its SHA-256 is stored.
 * Each login starts a family; rotation keeps it, so reuse of any rotated token kills the chain.
 */
import type { Database } from "../db";
import type { RefreshTokenRepository } from "../db/repositories/refresh-tokens";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import { randomBase64url, sha256Hex } from "./token-digest";

export interface IssuedRefreshToken {
  token: string;
  expiresAt: Date;
}

export interface RefreshTokenSettings {
  enabled: boolean;
  lifetimeDays: number;
}

const TOKEN_FORMAT = /^rt_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 3600 * 1000;

const invalidRefreshToken = () => new DomainError("Unauthorized", "the refresh token is invalid, expired or revoked");

type RotationOutcome =
  | { kind: "rotated"; userId: string; next: IssuedRefreshToken }
  | { kind: "reused"; familyId: string }
  | { kind: "invalid" };

export class RefreshTokens {
  constructor(
    private readonly database: Database,
    private readonly tokens: RefreshTokenRepository,
    private readonly settings: RefreshTokenSettings,
    private readonly log: Logger,
  ) {}

  get enabled(): boolean {
    return this.settings.enabled;
  }

  /** A new active token; without `familyId` it starts a new family (a login). */
  async issue(userId: string, familyId: string = crypto.randomUUID()): Promise<IssuedRefreshToken> {
    const token = `rt_${randomBase64url(32)}`;
    const expiresAt = new Date(Date.now() + this.settings.lifetimeDays * DAY_MS);
    await this.tokens.insert({ userId, familyId, tokenHash: sha256Hex(token), expiresAt });
    return { token, expiresAt };
  }

  /** Consumes an active token and returns its successor; throws 401 otherwise (see the state table). */
  async rotate(token: string): Promise<{ userId: string; next: IssuedRefreshToken }> {
    this.assertEnabled();
    if (!TOKEN_FORMAT.test(token)) throw invalidRefreshToken();
    const tokenHash = sha256Hex(token);
    const now = new Date();
    const outcome = await this.database.transaction(async (): Promise<RotationOutcome> => {
      const consumed = await this.tokens.markUsed(tokenHash, now);
      if (consumed) {
        // An expired token is consumed but not honoured; the daily job removes it.
        if (consumed.expiresAt <= now) return { kind: "invalid" };
        return { kind: "rotated", userId: consumed.userId, next: await this.issue(consumed.userId, consumed.familyId) };
      }
      const existing = await this.tokens.findByHash(tokenHash);
      return existing?.status === "used" ? { kind: "reused", familyId: existing.familyId } : { kind: "invalid" };
    });
    if (outcome.kind === "rotated") return outcome;
    if (outcome.kind === "reused") {
      // Committed on its own: the revocation must survive the 401 that follows.
      const revoked = await this.tokens.revokeActiveInFamily(outcome.familyId);
      this.log.warn("refresh token reuse detected: token family revoked", { familyId: outcome.familyId, revoked });
    }
    throw invalidRefreshToken();
  }

  /**
   * The owner of a token that is active and unexpired, without rotating it: browser sessions
   * keep one token in an HttpOnly cookie for their whole life (see browser-sessions.ts).
   */
  async activeOwner(token: string, now: Date = new Date()): Promise<string | null> {
    if (!TOKEN_FORMAT.test(token)) return null;
    const record = await this.tokens.findByHash(sha256Hex(token));
    return record?.status === "active" && record.expiresAt > now ? record.userId : null;
  }

  /** Logout: revokes the token if it is active. Unknown or already inactive tokens are ignored. */
  async revoke(token: string): Promise<void> {
    if (!TOKEN_FORMAT.test(token)) return;
    await this.tokens.revokeActive(sha256Hex(token));
  }

  /** Ends every session of a user (after an admin password reset or when the account is disabled). */
  async revokeAllOfUser(userId: string): Promise<void> {
    await this.tokens.revokeActiveOfUser(userId);
  }

  /** Deletes expired tokens of any status; the daily job calls this. */
  async pruneExpired(now: Date = new Date()): Promise<number> {
    return this.tokens.deleteExpired(now);
  }

  private assertEnabled(): void {
    if (!this.settings.enabled) throw new DomainError("NotFound", "refresh tokens are disabled on this server");
  }
}
