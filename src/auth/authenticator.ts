/**
 * Resolves who is calling from the credentials a request carries, in this order:
 *   Authorization: Bearer <JWT access token>
 *   Authorization: Bearer lbx_...            (API key)
 *   Authorization: Basic user:password       (throttled like a login)
 *   Authorization: Basic user:lbx_...        (API key of that user)
 *   X-API-Key: lbx_...
 *   the web interface's session cookie (only when none of the above is present; see cookie-sessions.ts)
 * Knows nothing about HTTP beyond header values; the Elysia plugin (src/http/auth-plugin.ts) uses it.
 *
 * Every credential ends in `authenticate`, which applies the rules common to all of them: the
 * account may sign in (not disabled, verified when required), and a session credential issued
 * before the account's last password change is refused (its token version is no longer the
 * account's). Session credentials (access tokens, the web session cookie) report the token
 * version they were issued under as `issuedUnderVersion`.
 *
 * This is also the one place that decides what the credential lets the request do, its
 * `authority` (routes ask `assertAuthorityFor`, never the credential kind):
 *   "account"  an interactive sign-in: an access token from a password or OIDC login (or
 *              refreshed from one), the web session begun by one. Everything the account may do.
 *   "full"     a full API key, or HTTP Basic with the password: everything except creating or
 *              changing credentials (a leaked key must not mint lasting access).
 *   "reader"   a reader API key (also through Basic): reads, and recording reading progress.
 * Komga clients' sessions are not credentials of this authenticator (src/http/komga/auth.ts).
 */
import type { Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { AccessTokens } from "./access-tokens";
import type { CookieSessions } from "./cookie-sessions";
import { assertMaySignIn } from "./account-status";
import { looksLikeApiKey, type ApiKeyService } from "./api-keys";
import type { LoginService } from "./login";
import { sameUsername } from "./users";

export type CredentialKind = "jwt" | "apiKey" | "basic" | "session";

/** What a request may do, by the credential that authenticated it (see the top of this file). */
export type Authority = "account" | "full" | "reader";

/** What a route does with a request, as far as credentials are concerned. */
export type RouteAction = "read" | "record-progress" | "write" | "change-credentials";

export interface Caller {
  user: UserRecord;
  via: CredentialKind;
  authority: Authority;
  /** The browser session token when `via` is "session" (its CSRF token derives from it). */
  sessionToken?: string;
}

/** A credential resolved to its account, before the common rules apply. */
interface ResolvedCredential extends Caller {
  /** For session credentials: the account's token version when the credential was issued. */
  issuedUnderVersion?: number;
}

export interface PresentedCredentials {
  authorization: string | null;
  apiKeyHeader: string | null;
  sessionCookie?: string | null;
  /** Asked only when a password is checked (for throttling): looking up the peer address costs. */
  clientIp: () => string;
}

const invalidCredentials = () => new DomainError("Unauthorized", "the credentials are invalid or expired");

/** The 403 of a signed-in caller whose credential does not allow what the request does. */
export class AuthorityRefused extends DomainError {
  constructor(message: string, code: "InteractiveSignInRequired" | "ReaderKeyScope") {
    super("Forbidden", message, undefined, code);
  }
}

/** Throws AuthorityRefused unless the caller's authority covers `action`. */
export function assertAuthorityFor(caller: Pick<Caller, "authority">, action: RouteAction): void {
  if (action === "change-credentials" && caller.authority !== "account") {
    throw new AuthorityRefused(
      "creating or changing credentials needs an interactive sign-in (password or single sign-on), not an API key or HTTP Basic",
      "InteractiveSignInRequired",
    );
  }
  if (caller.authority === "reader" && action !== "read" && action !== "record-progress") {
    throw new AuthorityRefused("a reader API key may only read and record reading progress", "ReaderKeyScope");
  }
}

export class Authenticator {
  constructor(
    private readonly repositories: Repositories,
    private readonly accessTokens: AccessTokens,
    private readonly apiKeys: ApiKeyService,
    private readonly login: LoginService,
    private readonly cookieSessions: CookieSessions,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  /** The caller; null when no credentials were presented; throws 401/403/429 for bad ones. */
  async authenticate(credentials: PresentedCredentials): Promise<Caller | null> {
    const resolved = await this.resolve(credentials);
    if (!resolved) return null;
    const { issuedUnderVersion, ...caller } = resolved;
    const { user } = caller;
    // The account row comes from the request cache (src/db/repositories/users.ts), so this costs no query.
    if (issuedUnderVersion !== undefined && issuedUnderVersion !== user.tokenVersion) throw invalidCredentials();
    assertMaySignIn(user, this.emailConfirmationRequired);
    return caller;
  }

  private async resolve({ authorization, apiKeyHeader, sessionCookie, clientIp }: PresentedCredentials): Promise<ResolvedCredential | null> {
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
    if (apiKeyHeader) return this.byApiKey(apiKeyHeader.trim());
    return sessionCookie ? this.bySession(sessionCookie) : null;
  }

  private async bySession(sessionToken: string): Promise<ResolvedCredential> {
    const session = await this.cookieSessions.find(sessionToken);
    if (!session) throw new DomainError("Unauthorized", "the session has ended; sign in again");
    // Web sessions are begun only by an interactive sign-in (src/http/web/pages).
    return { ...session, via: "session", authority: "account", sessionToken };
  }

  private async byAccessToken(token: string): Promise<ResolvedCredential> {
    const claims = await this.accessTokens.verify(token);
    // The account is read for the request (not taken from the token) so that deletion,
    // disabling, role and password changes apply at once.
    const user = claims && (await this.repositories.users.findForRequest(claims.userId));
    if (!user) throw invalidCredentials();
    // Access tokens are issued only by a login, an OIDC sign-in or a refresh of one (./sessions.ts).
    return { user, via: "jwt", authority: "account", issuedUnderVersion: claims.tokenVersion };
  }

  private async byApiKey(key: string, expectedUsername?: string): Promise<Caller> {
    const owner = await this.apiKeys.ownerOf(key);
    if (!owner || (expectedUsername !== undefined && !sameUsername(owner.user.username, expectedUsername))) throw invalidCredentials();
    return { user: owner.user, via: "apiKey", authority: owner.scope };
  }

  private async byBasic(encoded: string, clientIp: () => string): Promise<Caller> {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidCredentials();
    const username = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (looksLikeApiKey(secret)) return { ...(await this.byApiKey(secret, username)), via: "basic" };
    return { user: await this.login.verifyPasswordForRequest(username, secret, clientIp), via: "basic", authority: "full" };
  }
}
