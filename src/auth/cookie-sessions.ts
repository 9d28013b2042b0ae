/**
 * Cookie-backed sessions for clients that sign in once and then send only a cookie (Komga
 * clients: KOMGA-SESSION and komga-remember-me). The cookie holds a token of Longbox's own
 * session store: each cookie session is a refresh-token family of one token, which is presented
 * as it is on every request instead of being rotated. So everything that ends refresh-token
 * sessions ends cookie sessions too: logout revokes the token, a password change (which also
 * raises the account's token version) or disabling the account revokes every active token of
 * the user, and the daily job prunes
 * expired ones. The account is read for each request, so a disabled or deleted account is out
 * at once. Knows nothing about HTTP: the slice decides cookie names and attributes.
 */
import type { Repositories, UserRecord } from "../db";
import type { IssuedRefreshToken, RefreshTokens } from "./refresh-tokens";

export class CookieSessions {
  constructor(
    private readonly repositories: Repositories,
    private readonly refreshTokens: RefreshTokens,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  /** A new session for a user who has just proven who they are, lasting `lifetimeDays`. */
  start(user: UserRecord, lifetimeDays: number): Promise<IssuedRefreshToken> {
    return this.refreshTokens.start(user, lifetimeDays);
  }

  /** The account behind a session token; undefined when the session ended or the account may not sign in. */
  async resume(token: string): Promise<UserRecord | undefined> {
    const family = await this.refreshTokens.holderOf(token);
    if (!family) return undefined;
    const user = await this.repositories.users.findForRequest(family.userId);
    if (!user || user.disabled || (this.emailConfirmationRequired && !user.emailVerified)) return undefined;
    // A session begun before the account's last password change is over.
    return family.tokenVersion === user.tokenVersion ? user : undefined;
  }

  /** Ends the session (logout); unknown or ended tokens are ignored. */
  end(token: string): Promise<void> {
    return this.refreshTokens.revoke(token);
  }
}
