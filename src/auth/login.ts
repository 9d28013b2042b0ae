/**
 * Password sign-in, for POST /auth/login and for HTTP Basic: throttled per client IP and per
 * username, and equally slow for unknown users (a dummy Argon2 verification runs) so that the
 * answer time does not reveal which usernames exist. Hashes made with older Argon2 parameters
 * are upgraded on the next successful sign-in.
 */
import type { Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import type { LoginThrottle } from "./login-throttle";
import type { PasswordHasher } from "./passwords";
import { randomBase64url } from "./token-digest";
import type { LoginResult, Sessions } from "./sessions";

export class LoginService {
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly repositories: Repositories,
    private readonly passwords: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly sessions: Sessions,
    private readonly log: Logger,
  ) {}

  async login(username: string, password: string, clientIp: string): Promise<LoginResult> {
    const user = await this.verifyPassword(username, password, clientIp);
    return this.sessions.start(user);
  }

  /** The user whose password this is; 401 (same message for every cause) or 429 otherwise. */
  async verifyPassword(username: string, password: string, clientIp: string): Promise<UserRecord> {
    const keys = [`ip:${clientIp}`, `user:${username}`];
    this.throttle.assertAllowed(keys);
    const user = await this.repositories.users.findByUsername(username);
    const storedHash = user?.passwordHash ?? (await this.dummy());
    const matches = await this.passwords.verify(storedHash, password);
    if (!user?.passwordHash || !matches) {
      this.throttle.recordFailure(keys);
      throw new DomainError("Unauthorized", "invalid username or password");
    }
    this.throttle.forget(`user:${username}`);
    return this.upgradeHashIfNeeded(user, password);
  }

  private async upgradeHashIfNeeded(user: UserRecord, password: string): Promise<UserRecord> {
    if (!this.passwords.needsRehash(user.passwordHash ?? "")) return user;
    const passwordHash = await this.passwords.hash(password);
    this.log.info("password hash upgraded to the configured Argon2 parameters", { userId: user.id });
    return (await this.repositories.users.update(user.id, { passwordHash })) ?? user;
  }

  /** A hash with the configured parameters that no password matches, made once. */
  private dummy(): Promise<string> {
    return (this.dummyHash ??= this.passwords.hash(randomBase64url(32)));
  }
}
