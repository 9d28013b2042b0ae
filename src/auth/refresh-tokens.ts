/**
 * Refresh tokens, following the specification's state table:
 *   active --refresh--> used (and a new active token of the same family is issued)
 *   used --presented again--> rejected, and every active token of the family is revoked
 *   active --logout--> revoked
 *   active or used --daily job, expired--> pruned (deleted)
 * A token is `rt_` + 43 base64url characters (32 random bytes); only its SHA-256 is stored.
 * Cookie sessions (./cookie-sessions.ts) are families of the same store whose one token is
 * `cs_` (the web interface's, begun by an interactive sign-in) or `ks_` (a client's, begun by
 * Basic or an API key: Komga apps) + 43 characters: the prefix is part of what is hashed, so a
 * token's kind cannot be changed, and each kind is accepted only where it belongs (a cookie
 * session's token cannot be rotated into API tokens, nor an API refresh token presented as a
 * session cookie, nor a client's session, which an API key may start, as the web session).
 * Each login starts a family; rotation keeps it, so reuse of any rotated token kills the chain.
 * A family belongs to the account's token version it began under: after a password change
 * (which raises the version) none of its tokens is honoured, even one that escaped the
 * revocation by rotating concurrently with the change.
 * A reuse means the token was stolen, and whoever stole it may hold the access token it was
 * rotated into: the reuse raises the account's token version too, which ends every access token
 * of the user at its next request (the authenticator's version check). The user's other families
 * are carried over to the new version, so the other devices get new access tokens by refreshing;
 * only the stolen family ends.
 */
import type { Database, Repositories } from "../db";
import type { RefreshTokenRepository } from "../db/repositories/refresh-tokens";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import type { CredentialRevocations } from "./credential-revocation";
import { randomBase64url, sha256Hex } from "./token-digest";

export interface IssuedRefreshToken {
  token: string;
  expiresAt: Date;
}

export interface RefreshTokenSettings {
  enabled: boolean;
  lifetimeDays: number;
}

/**
 * What a family's tokens are for: rotated through POST /auth/refresh, or presented as a cookie
 * by the web interface ("cookie") or by a client that signed in with Basic or an API key ("client";
 * "readerClient" when the key is reader-scoped).
 */
export type SessionTokenKind = "refresh" | "cookie" | "client" | "readerClient";

const TOKEN_PREFIX: Record<SessionTokenKind, string> = { refresh: "rt_", cookie: "cs_", client: "ks_", readerClient: "kr_" };
const TOKEN_FORMAT: Record<SessionTokenKind, RegExp> = {
  refresh: /^rt_[A-Za-z0-9_-]{43}$/,
  cookie: /^cs_[A-Za-z0-9_-]{43}$/,
  client: /^ks_[A-Za-z0-9_-]{43}$/,
  readerClient: /^kr_[A-Za-z0-9_-]{43}$/,
};

/** The kind of a well-formed session token (by its prefix), else undefined. */
export const tokenKindOf = (token: string): SessionTokenKind | undefined =>
  (Object.keys(TOKEN_FORMAT) as SessionTokenKind[]).find((kind) => TOKEN_FORMAT[kind].test(token));
const isToken = (token: string) => Object.values(TOKEN_FORMAT).some((format) => format.test(token));
const DAY_MS = 24 * 3600 * 1000;

const invalidRefreshToken = () => new DomainError("Unauthorized", "the refresh token is invalid, expired or revoked");

/** A family: its user and the account's token version it began under. */
export interface RefreshFamily {
  userId: string;
  familyId: string;
  tokenVersion: number;
}

type RotationOutcome =
  | { kind: "rotated"; family: RefreshFamily; next: IssuedRefreshToken }
  | { kind: "reused"; familyId: string; userId: string }
  | { kind: "invalid" };

export class RefreshTokens {
  constructor(
    private readonly database: Database,
    private readonly tokens: RefreshTokenRepository,
    private readonly users: Repositories["users"],
    private readonly revocations: CredentialRevocations,
    private readonly settings: RefreshTokenSettings,
    private readonly log: Logger,
  ) {}

  get enabled(): boolean {
    return this.settings.enabled;
  }

  /**
   * A new family (a login), for the account at its current token version. `lifetimeDays`
   * overrides the configured lifetime (cookie sessions have their own).
   */
  start(user: { id: string; tokenVersion: number }, kind: SessionTokenKind = "refresh", lifetimeDays = this.settings.lifetimeDays): Promise<IssuedRefreshToken> {
    return this.issue({ userId: user.id, familyId: crypto.randomUUID(), tokenVersion: user.tokenVersion }, kind, lifetimeDays);
  }

  private async issue(family: RefreshFamily, kind: SessionTokenKind, lifetimeDays = this.settings.lifetimeDays): Promise<IssuedRefreshToken> {
    const token = `${TOKEN_PREFIX[kind]}${randomBase64url(32)}`;
    const expiresAt = new Date(Date.now() + lifetimeDays * DAY_MS);
    await this.tokens.insert({ ...family, tokenHash: sha256Hex(token), expiresAt });
    return { token, expiresAt };
  }

  /** Consumes an active token and returns its successor and family; throws 401 otherwise (see the state table). */
  async rotate(token: string): Promise<{ family: RefreshFamily; next: IssuedRefreshToken }> {
    this.assertEnabled();
    if (!TOKEN_FORMAT.refresh.test(token)) throw invalidRefreshToken();
    const tokenHash = sha256Hex(token);
    const now = new Date();
    const outcome = await this.database.transaction(async (): Promise<RotationOutcome> => {
      const consumed = await this.tokens.markUsed(tokenHash, now);
      if (consumed) {
        // An expired token is consumed but not honoured; the daily job removes it.
        if (consumed.expiresAt <= now) return { kind: "invalid" };
        const family = { userId: consumed.userId, familyId: consumed.familyId, tokenVersion: consumed.tokenVersion };
        return { kind: "rotated", family, next: await this.issue(family, "refresh") };
      }
      const existing = await this.tokens.findByHash(tokenHash);
      return existing?.status === "used" ? { kind: "reused", familyId: existing.familyId, userId: existing.userId } : { kind: "invalid" };
    });
    if (outcome.kind === "rotated") return outcome;
    if (outcome.kind === "reused") await this.endStolenFamily(outcome.familyId, outcome.userId);
    throw invalidRefreshToken();
  }

  /**
   * A reused token's family is revoked and the account's access tokens end (see above).
   * Committed on its own: the revocation must survive the 401 that follows.
   */
  private async endStolenFamily(familyId: string, userId: string): Promise<void> {
    const revoked = await this.database.transaction(async () => {
      const revokedTokens = await this.tokens.revokeActiveInFamily(familyId);
      const user = await this.users.update(userId, {}, { endSessions: true });
      // Only families of the version just left: one that escaped an earlier password change stays refused.
      if (user) await this.tokens.carryActiveOfUser(userId, user.tokenVersion - 1, user.tokenVersion);
      return revokedTokens;
    });
    this.revocations.announce(userId);
    this.log.warn("refresh token reuse detected: token family revoked, access tokens ended", { familyId, userId, revoked });
  }

  /**
   * The family of an active, unexpired cookie-session token of one of `kinds`, without consuming
   * it: a cookie session presents the same token on every request. Revoked, used and expired
   * tokens, and tokens of other kinds, give undefined.
   */
  async sessionHolderOf(token: string, kinds: readonly SessionTokenKind[], now: Date = new Date()): Promise<RefreshFamily | undefined> {
    if (!kinds.some((kind) => TOKEN_FORMAT[kind].test(token))) return undefined;
    const record = await this.tokens.findByHash(sha256Hex(token));
    if (record?.status !== "active" || record.expiresAt <= now) return undefined;
    return { userId: record.userId, familyId: record.familyId, tokenVersion: record.tokenVersion };
  }

  /** Revokes every active token of the family (reuse, or a family that outlived its token version). */
  async revokeFamily(familyId: string): Promise<void> {
    await this.tokens.revokeActiveInFamily(familyId);
  }

  /** Logout: revokes the token if it is active. Unknown or already inactive tokens are ignored. */
  async revoke(token: string): Promise<void> {
    if (!isToken(token)) return;
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
