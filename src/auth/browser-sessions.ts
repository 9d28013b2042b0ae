/**
 * Browser sessions for the web interface. A sign-in starts a refresh-token family as the API's
 * login does, and the browser keeps that one token in an HttpOnly cookie (it is never rotated:
 * the cookie is the session). Because it is an ordinary refresh token, everything that ends
 * refresh tokens ends browser sessions too: logout, an admin password reset, disabling the
 * account, "sign out everywhere" and the revocation of a reused family.
 *
 * State-changing requests made with the cookie must also carry a CSRF token: an HMAC of the
 * session token under a server secret, so it needs no storage and dies with the session.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Repositories, UserRecord } from "../db";
import { assertMaySignIn } from "./account-status";
import type { IssuedRefreshToken, RefreshTokens } from "./refresh-tokens";

export class BrowserSessions {
  constructor(
    private readonly repositories: Repositories,
    private readonly refreshTokens: RefreshTokens,
    private readonly csrfSecret: string,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  /** A new session for a user who has just proven who they are (throws 403 for disabled accounts). */
  start(user: UserRecord): Promise<IssuedRefreshToken> {
    assertMaySignIn(user, this.emailConfirmationRequired);
    return this.refreshTokens.issue(user.id);
  }

  /** The user of a live session; null when the token is unknown, revoked or expired. Throws 403 for a disabled account. */
  async userOf(sessionToken: string): Promise<UserRecord | null> {
    const userId = await this.refreshTokens.activeOwner(sessionToken);
    const user = userId ? await this.repositories.users.findForRequest(userId) : undefined;
    if (!user) return null;
    assertMaySignIn(user, this.emailConfirmationRequired);
    return user;
  }

  end(sessionToken: string): Promise<void> {
    return this.refreshTokens.revoke(sessionToken);
  }

  /** Ends every session of the user (browser and API refresh tokens alike). */
  endAll(userId: string): Promise<void> {
    return this.refreshTokens.revokeAllOfUser(userId);
  }

  csrfToken(sessionToken: string): string {
    return createHmac("sha256", this.csrfSecret).update("csrf\0").update(sessionToken).digest("base64url");
  }

  csrfTokenMatches(sessionToken: string, presented: string | null | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.csrfToken(sessionToken));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
