/**
 * A session is what a successful sign-in hands out: an access token and, when enabled, a
 * refresh token. Password login, refresh and OIDC all end here, so the login result has one shape.
 */
import type { Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { AccessTokens } from "./access-tokens";
import { assertMaySignIn } from "./account-status";
import type { RefreshTokens } from "./refresh-tokens";
import { toUserDto, type UserDto } from "./users";

/** The specification's login result (snake_case by contract), plus token_type and the user. */
export interface LoginResult {
  token: string;
  expires_at: string;
  refresh_token?: string;
  refresh_token_expires_at?: string;
  token_type: "Bearer";
  user: UserDto;
}

export class Sessions {
  constructor(
    private readonly repositories: Repositories,
    private readonly accessTokens: AccessTokens,
    private readonly refreshTokens: RefreshTokens,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  /** Starts a new session (and refresh-token family) for a user who has just proven who they are. */
  async start(user: UserRecord): Promise<LoginResult> {
    assertMaySignIn(user, this.emailConfirmationRequired);
    const refresh = this.refreshTokens.enabled ? await this.refreshTokens.start(user) : undefined;
    return this.result(user, refresh);
  }

  /** Rotates the refresh token and issues a fresh access token with the user's current role. */
  async refresh(refreshToken: string): Promise<LoginResult> {
    const { family, next } = await this.refreshTokens.rotate(refreshToken);
    const user = await this.repositories.users.findById(family.userId);
    if (!user || user.tokenVersion !== family.tokenVersion) {
      // The password changed since the family began: it ends here.
      if (user) await this.refreshTokens.revokeFamily(family.familyId);
      throw new DomainError("Unauthorized", "the refresh token is invalid, expired or revoked");
    }
    assertMaySignIn(user, this.emailConfirmationRequired);
    return this.result(user, next);
  }

  async end(refreshToken: string): Promise<void> {
    await this.refreshTokens.revoke(refreshToken);
  }

  private async result(user: UserRecord, refresh: { token: string; expiresAt: Date } | undefined): Promise<LoginResult> {
    const access = await this.accessTokens.issue(user);
    return {
      token: access.token,
      expires_at: access.expiresAt.toISOString(),
      ...(refresh && { refresh_token: refresh.token, refresh_token_expires_at: refresh.expiresAt.toISOString() }),
      token_type: "Bearer",
      user: toUserDto(user),
    };
  }
}
