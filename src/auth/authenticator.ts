/**
 * Resolves who is calling from the credentials a request carries, in this order:
 *   Authorization: Bearer <JWT access token>
 *   Authorization: Bearer lbx_...            (API key)
 *   Authorization: Basic user:password       (throttled like a login)
 *   Authorization: Basic user:lbx_...        (API key of that user)
 *   X-API-Key: lbx_...
 * Knows nothing about HTTP beyond header values; the Elysia plugin (src/http/auth-plugin.ts) uses it.
 */
import type { Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { AccessTokens } from "./access-tokens";
import { assertMaySignIn } from "./account-status";
import { looksLikeApiKey, type ApiKeyService } from "./api-keys";
import type { LoginService } from "./login";

export type CredentialKind = "jwt" | "apiKey" | "basic";

export interface Caller {
  user: UserRecord;
  via: CredentialKind;
}

export interface PresentedCredentials {
  authorization: string | null;
  apiKeyHeader: string | null;
  /** Asked only when a password is checked (for throttling): looking up the peer address costs. */
  clientIp: () => string;
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
    const caller = await this.resolve(credentials);
    if (caller) assertMaySignIn(caller.user, this.emailConfirmationRequired);
    return caller;
  }

  private async resolve({ authorization, apiKeyHeader, clientIp }: PresentedCredentials): Promise<Caller | null> {
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

  private async byAccessToken(token: string): Promise<Caller> {
    const claims = await this.accessTokens.verify(token);
    // The account is read for the request (not taken from the token) so that deletion,
    // disabling and role changes apply at once.
    const user = claims && (await this.repositories.users.findForRequest(claims.userId));
    if (!user) throw invalidCredentials();
    return { user, via: "jwt" };
  }

  private async byApiKey(key: string, expectedUsername?: string): Promise<Caller> {
    const user = await this.apiKeys.ownerOf(key);
    if (!user || (expectedUsername !== undefined && user.username !== expectedUsername)) throw invalidCredentials();
    return { user, via: "apiKey" };
  }

  private async byBasic(encoded: string, clientIp: () => string): Promise<Caller> {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidCredentials();
    const username = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (looksLikeApiKey(secret)) return { ...(await this.byApiKey(secret, username)), via: "basic" };
    return { user: await this.login.verifyPasswordForRequest(username, secret, clientIp), via: "basic" };
  }
}
