/**
 * What a password change ends, whoever makes it: the account's token version is raised (so
 * every access token issued before stops working at its next request) and every refresh-token
 * family and cookie session of the user is revoked. The keys made for automation and devices,
 * the API keys and the KOReader sync key, go too, except when the user changes their own
 * password and asks to keep them (`keepApiKeys`: automation that must survive a routine
 * rotation). An admin's reset (PUT /api/v1/users/{id}: the account may be compromised) always
 * ends them all. Once committed, the change is announced to every process
 * (./credential-revocation.ts).
 */
import type { Database, Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import type { CredentialRevocations } from "./credential-revocation";
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
    private readonly revocations: CredentialRevocations,
    private readonly log: Logger,
  ) {}

  /**
   * Ends what the old password opened. Called inside the transaction that stores the new hash
   * (with `endSessions`, which raises the token version), so all of it happens or none; the
   * caller announces it once committed (CredentialRevocations.announce).
   */
  async endCredentialsOf(userId: string, { keepApiKeys }: PasswordChangeOptions): Promise<void> {
    await this.refreshTokens.revokeAllOfUser(userId);
    const revokedKeys = keepApiKeys ? 0 : await this.repositories.apiKeys.deleteAllOfUser(userId);
    if (!keepApiKeys) await this.repositories.koreaderKeys.delete(userId);
    this.log.info("password changed: sessions ended", { userId, revokedApiKeys: revokedKeys, keptKeys: keepApiKeys });
  }


  /**
   * The user changes their own password, proving the current one (checked and throttled like a
   * login, so a stolen access token cannot be used to guess it). Answers a new session, since
   * the one the request came with has just ended.
   */
  async changeOwn(user: UserRecord, change: OwnPasswordChange): Promise<LoginResult> {
    return this.sessions.start(await this.changeOwnPassword(user, change));
  }

  /** The change itself, for callers that start their own kind of session (the web interface's cookie). */
  async changeOwnPassword(user: UserRecord, change: OwnPasswordChange): Promise<UserRecord> {
    // The new password is checked first: a too-short one must not cost a failed-attempt count.
    const passwordHash = await this.passwords.hash(change.newPassword);
    const proven = await this.login.verifyPassword(user.username, change.currentPassword, change.clientIp);
    if (proven.id !== user.id) throw new DomainError("Unauthorized", "invalid username or password");
    const updated = await this.database.transaction(async () => {
      const changed = await this.repositories.users.update(user.id, { passwordHash }, { endSessions: true });
      await this.endCredentialsOf(user.id, change);
      return changed;
    });
    this.revocations.announce(user.id);
    if (!updated) throw new DomainError("Unauthorized", "the credentials are invalid or expired");
    return updated;
  }
}
