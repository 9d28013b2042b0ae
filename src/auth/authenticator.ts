/**
 * Resolves who is calling from the credentials a request carries, in this order:
 *   Authorization: Bearer <JWT access token>
 *   Authorization: Bearer lbx_...            (API key)
 *   Authorization: Basic user:password       (throttled like a login)
 *   Authorization: Basic user:lbx_...        (API key of that user)
 *   X-API-Key: lbx_...
 * Knows nothing about HTTP beyond header values; the Elysia plugin (src/http/auth-plugin.ts) uses it.
 *
 * Every credential ends in `authenticate`, which applies the rules common to all of them: the
 * account may sign in (not disabled, verified when required), and a session credential issued
 * before the account's last password change is refused (its token version is no longer the
 * account's). A new kind of session credential (a cookie, say) reports the token version it was
 * issued under as `issuedUnderVersion` and gets the same check.
 */
import type { Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { AccessTokens } from "./access-tokens";
import { assertMaySignIn } from "./account-status";
import { looksLikeApiKey, type ApiKeyService } from "./api-keys";
import type { LoginService } from "./login";
import { sameUsername } from "./users";

export type CredentialKind = "jwt" | "apiKey" | "basic";

export interface Caller {
  user: UserRecord;
  via: CredentialKind;
}

/** A credential resolved to its account, before the common rules apply. */
interface ResolvedCredential extends Caller {
  /** For session credentials: the account's token version when the credential was issued. */
  issuedUnderVersion?: number;
}

export interface PresentedCredentials {
  authorization: string | null;
  apiKeyHeader: string | null;
  clientIp: string;
}

const invalidCredentials = () => new DomainError("Unauthorized", "the credentials are invalid or expired");

export class Authenticator {
  constructor(
    private readonly repositories: Repositories,
    private readonly accessTokens: AccessTokens,
    private readonly apiKeys: ApiKeyService,
    private readonly login: LoginService,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  /** The caller; null when no credentials were presented; throws 401/403/429 for bad ones. */
  async authenticate(credentials: PresentedCredentials): Promise<Caller | null> {
    const resolved = await this.resolve(credentials);
    if (!resolved) return null;
    const { user, via, issuedUnderVersion } = resolved;
    // The account row comes from the request cache (src/db/repositories/users.ts), so this costs no query.
    if (issuedUnderVersion !== undefined && issuedUnderVersion !== user.tokenVersion) throw invalidCredentials();
    assertMaySignIn(user, this.emailConfirmationRequired);
    return { user, via };
  }

  private async resolve({ authorization, apiKeyHeader, clientIp }: PresentedCredentials): Promise<ResolvedCredential | null> {
    if (authorization) {
      const [scheme = "", value = ""] = authorization.trim().split(/\s+/, 2);
      switch (scheme.toLowerCase()) {
        case "bearer":
          return looksLikeApiKey(value) ? this.byApiKey(value) : this.byAccessToken(value);
        case "basic":
          return this.byBasic(value, clientIp);
        default:
          throw invalidCredentials();
      }
    }
    return apiKeyHeader ? this.byApiKey(apiKeyHeader.trim()) : null;
  }

  private async byAccessToken(token: string): Promise<ResolvedCredential> {
    const claims = await this.accessTokens.verify(token);
    // The account is read for the request (not taken from the token) so that deletion,
    // disabling, role and password changes apply at once.
    const user = claims && (await this.repositories.users.findForRequest(claims.userId));
    if (!user) throw invalidCredentials();
    return { user, via: "jwt", issuedUnderVersion: claims.tokenVersion };
  }

  private async byApiKey(key: string, expectedUsername?: string): Promise<Caller> {
    const user = await this.apiKeys.ownerOf(key);
    if (!user || (expectedUsername !== undefined && !sameUsername(user.username, expectedUsername))) throw invalidCredentials();
    return { user, via: "apiKey" };
  }

  private async byBasic(encoded: string, clientIp: string): Promise<Caller> {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidCredentials();
    const username = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (looksLikeApiKey(secret)) return { ...(await this.byApiKey(secret, username)), via: "basic" };
    return { user: await this.login.verifyPasswordForRequest(username, secret, clientIp), via: "basic" };
  }
}
