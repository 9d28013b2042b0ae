/**
 * Password sign-in, for POST /auth/login and for HTTP Basic: throttled per client address, per
 * address and account, and (softly) per account (./login-throttle.ts); equally slow for unknown users (a dummy Argon2 verification runs) so that the
 * answer time does not reveal which usernames exist. Hashes made with older Argon2 parameters
 * are upgraded on the next successful sign-in.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Repositories, UserRecord } from "../db";
import { DomainError } from "../errors";
import type { Logger } from "../logging/logger";
import { attemptOf, type LoginThrottle } from "./login-throttle";
import type { PasswordHasher } from "./passwords";
import { randomBase64url } from "./token-digest";
import type { LoginResult, Sessions } from "./sessions";
import { accountNamed, sameUsername } from "./users";

/** How long a password checked for HTTP Basic is trusted again without a new Argon2 check. */
const BASIC_REUSE_MS = 5 * 60_000;
const BASIC_REUSE_ENTRIES = 10_000;

export class LoginService {
  private dummyHash: Promise<string> | undefined;
  /**
   * HTTP Basic sends the password with every request (an OPDS reader: one per page), and an
   * Argon2 check per request would be the server's main cost. A username and password that
   * checked out are remembered, keyed by an HMAC under a key that lives only in this process
   * (never the password itself), with the account and password hash they matched: a changed
   * password, a disabled or deleted account, or another username does not reuse the entry.
   */
  private readonly recentlyVerified = new Map<string, { userId: string; passwordHash: string; until: number }>();
  private readonly reuseKey = randomBytes(32);

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

  /**
   * The user whose password this is; 401 (same message for every cause) or 429 otherwise. The
   * password is checked before anything about the account is said: whether it may sign in
   * (disabled, unverified: 403) is the caller's next step, only after a correct password.
   */
  async verifyPassword(username: string, password: string, clientIp: string): Promise<UserRecord> {
    const attempt = attemptOf(username, clientIp);
    await this.throttle.assertAllowed(attempt);
    const user = await accountNamed(this.repositories, username);
    const storedHash = user?.passwordHash ?? (await this.dummy());
    const matches = await this.passwords.verify(storedHash, password);
    if (!user?.passwordHash || !matches) {
      await this.throttle.recordFailure(attempt);
      throw new DomainError("Unauthorized", "invalid username or password");
    }
    await this.throttle.recordSuccess(attempt);
    return this.upgradeHashIfNeeded(user, password);
  }

  /**
   * verifyPassword for HTTP Basic, which reuses a recent successful check (see above). The
   * throttle decides first: a remembered success never answers for an address or account that
   * is refused, or a refused address could tell the right password (200) from wrong ones (429)
   * at the speed of a cache lookup. Its decisions are remembered too, so this costs no query.
   */
  async verifyPasswordForRequest(username: string, password: string, clientIp: () => string): Promise<UserRecord> {
    const address = clientIp();
    await this.throttle.assertAllowed(attemptOf(username, address));
    const key = createHmac("sha256", this.reuseKey).update(username).update("\0").update(password).digest("base64");
    const known = this.recentlyVerified.get(key);
    if (known && known.until > Date.now()) {
      const user = await this.repositories.users.findForRequest(known.userId);
      if (user && sameUsername(user.username, username) && user.passwordHash === known.passwordHash) return user;
    }
    this.recentlyVerified.delete(key);
    const user = await this.verifyPassword(username, password, address);
    if (this.recentlyVerified.size >= BASIC_REUSE_ENTRIES) this.recentlyVerified.delete(this.recentlyVerified.keys().next().value!);
    this.recentlyVerified.set(key, { userId: user.id, passwordHash: user.passwordHash ?? "", until: Date.now() + BASIC_REUSE_MS });
    return user;
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
