/**
 * What a password change ends, whoever makes it (an admin's reset through PUT /api/v1/users/{id},
 * or the user through PUT /api/v1/auth/me/password): the account's token version is raised (so
 * every access token issued before stops working at its next request), every refresh-token
 * family of the user is revoked, and the user's API keys are deleted unless the request asks to
 * keep them (`keepApiKeys`: automation that must survive a routine password rotation).
 */
import type { Database, Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import type { LoginService } from "./login";
import type { PasswordHasher } from "./passwords";
import type { RefreshTokens } from "./refresh-tokens";
import type { LoginResult, Sessions } from "./sessions";

export interface PasswordChangeOptions {
  keepApiKeys: boolean;
}

export interface OwnPasswordChange extends PasswordChangeOptions {
  currentPassword: string;
  newPassword: string;
  clientIp: string;
}

export class PasswordChanges {
  constructor(
    private readonly database: Database,
    private readonly repositories: Repositories,
    private readonly passwords: PasswordHasher,
    private readonly refreshTokens: RefreshTokens,
    private readonly login: LoginService,
    private readonly sessions: Sessions,
    private readonly log: Logger,
  ) {}

  /**
   * Ends what the old password opened. Called inside the transaction that stores the new hash
   * (with `endSessions`, which raises the token version), so all of it happens or none.
   */
  async endCredentialsOf(userId: string, { keepApiKeys }: PasswordChangeOptions): Promise<void> {
    await this.refreshTokens.revokeAllOfUser(userId);
    const revokedKeys = keepApiKeys ? 0 : await this.repositories.apiKeys.deleteAllOfUser(userId);
    this.log.info("password changed: sessions ended", { userId, revokedApiKeys: revokedKeys, keptApiKeys: keepApiKeys });
  }

  /**
   * The user changes their own password, proving the current one (checked and throttled like a
   * login, so a stolen access token cannot be used to guess it). Answers a new session, since
   * the one the request came with has just ended.
   */
  async changeOwn(user: UserRecord, change: OwnPasswordChange): Promise<LoginResult> {
    // The new password is checked first: a too-short one must not cost a failed-attempt count.
    const passwordHash = await this.passwords.hash(change.newPassword);
    const proven = await this.login.verifyPassword(user.username, change.currentPassword, change.clientIp);
    if (proven.id !== user.id) throw new DomainError("Unauthorized", "invalid username or password");
    const updated = await this.database.transaction(async () => {
      const changed = await this.repositories.users.update(user.id, { passwordHash }, { endSessions: true });
      await this.endCredentialsOf(user.id, change);
      return changed;
    });
    if (!updated) throw new DomainError("Unauthorized", "the credentials are invalid or expired");
    return this.sessions.start(updated);
  }
}
