/**
 * Access tokens: stateless HS256 JWTs with `sub` (user id), `role`, `ver` (the account's token
 * version when issued; the authenticator refuses a token whose version is no longer the
 * account's), `iat`, `exp` and `jti`.
 * Verification pins the algorithm: a token whose header names `none` or any other algorithm
 * (HS384, HS512, ...) is rejected even when its signature would check out with our secret.
 */
import { jwt } from "@elysiajs/jwt";
import type { Role, UserRecord } from "../db";

export interface AccessTokenClaims {
  userId: string;
  role: Role;
  tokenVersion: number;
}

export interface IssuedAccessToken {
  token: string;
  expiresAt: Date;
}

const ALGORITHM = "HS256";
/** Tokens whose signature was already checked; readers send the same token with every page. */
const VERIFIED_CACHE_SIZE = 10_000;

export class AccessTokens {
  /** @elysiajs/jwt is an Elysia plugin; its decorator is the signer, usable outside a request. */
  private readonly signer;
  /**
   * Verified tokens by their exact text, with their expiry (ms). A token is immutable, so once
   * its signature and claims checked out, only its expiry can change the answer. Bounded; the
   * oldest entry goes first. The account itself is still read on every request by the caller.
   */
  private readonly verified = new Map<string, { claims: AccessTokenClaims; expiresAtMs: number }>();

  constructor(
    secret: string,
    private readonly lifetimeHours: number,
  ) {
    this.signer = jwt({ name: "jwt", secret, alg: ALGORITHM }).decorator.jwt;
  }

  async issue(user: Pick<UserRecord, "id" | "role" | "tokenVersion">): Promise<IssuedAccessToken> {
    const expiresAtSeconds = Math.floor(Date.now() / 1000) + this.lifetimeHours * 3600;
    const token = await this.signer.sign({
      sub: user.id,
      role: user.role,
      ver: user.tokenVersion,
      jti: crypto.randomUUID(),
      exp: expiresAtSeconds,
    });
    return { token, expiresAt: new Date(expiresAtSeconds * 1000) };
  }

  /** The claims of a valid token; null for a malformed, forged, expired or wrongly signed one. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAtMs > Date.now()) return known.claims;
      this.verified.delete(token);
      return null;
    }
    const payload = await this.signer.verify(token, {
      algorithms: [ALGORITHM],
      requiredClaims: ["sub", "role", "ver", "iat", "exp", "jti"],
    });
    if (!payload || typeof payload.sub !== "string" || !Number.isSafeInteger(payload.ver)) return null;
    const role = payload.role;
    if (role !== "admin" && role !== "user") return null;
    const claims: AccessTokenClaims = { userId: payload.sub, role, tokenVersion: payload.ver as number };
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { claims, expiresAtMs: Number(payload.exp) * 1000 });
    return claims;
  }
}
