/**
 * KOReader sync keys. KOReader signs in to a sync server with a username and the MD5 of a
 * password, sent with every request. Longbox never lets that stand in for the account password
 * (an MD5 is quickly reversed): each user sets, or has Longbox generate, a separate sync key to
 * type into KOReader. What is stored is an Argon2 hash of the key's MD5, so neither the key nor
 * its MD5 is kept. Failed checks are throttled like logins, and unknown users cost the same
 * Argon2 check, so the answer time does not tell which usernames exist.
 */
import { createHash } from "node:crypto";
import type { Repositories, UserRecord } from "../db";
import { DomainError, invalidFields } from "../errors";
import { assertMaySignIn } from "./account-status";
import { attemptOf, type LoginThrottle } from "./login-throttle";
import { MIN_PASSWORD_LENGTH, type PasswordHasher } from "./passwords";
import { randomBase64url } from "./token-digest";
import { accountNamed } from "./users";

const MAX_KEY_LENGTH = 256;

/** The MD5 of a key, lowercase hex, as KOReader sends it in `x-auth-key`. */
const md5Hex = (key: string): string => createHash("md5").update(key, "utf8").digest("hex");

export interface KoreaderKeyStatus {
  configured: boolean;
  createdAt: string | null;
}

export class KoreaderKeyService {
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly repositories: Repositories,
    private readonly passwords: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  async status(userId: string): Promise<KoreaderKeyStatus> {
    const key = await this.repositories.koreaderKeys.find(userId);
    return { configured: key !== undefined, createdAt: key?.createdAt.toISOString() ?? null };
  }

  /** Sets the user's key to one they chose (replacing any earlier key). */
  async set(userId: string, key: string): Promise<KoreaderKeyStatus> {
    if (key.length < MIN_PASSWORD_LENGTH || key.length > MAX_KEY_LENGTH) {
      throw invalidFields("UnprocessableEntity", { key: `must be ${MIN_PASSWORD_LENGTH} to ${MAX_KEY_LENGTH} characters long` });
    }
    const saved = await this.repositories.koreaderKeys.save(userId, await this.passwords.hash(md5Hex(key)));
    return { configured: true, createdAt: saved.createdAt.toISOString() };
  }

  /** Generates a key for the user (replacing any earlier key); it is returned this once. */
  async generate(userId: string): Promise<KoreaderKeyStatus & { key: string }> {
    const key = randomBase64url(18);
    return { ...(await this.set(userId, key)), key };
  }

  async clear(userId: string): Promise<void> {
    await this.repositories.koreaderKeys.delete(userId);
  }

  /**
   * The account that `username` names when `keyMd5` is the MD5 of its sync key. 401 for every
   * mismatch (unknown user, no key, wrong key), 429 once throttled, 403 for a disabled account.
   */
  async verify(username: string, keyMd5: string, clientIp: string): Promise<UserRecord> {
    // The same throttle as password sign-in: a guessed sync key counts like a guessed password.
    const attempt = attemptOf(username, clientIp);
    await this.throttle.assertAllowed(attempt);
    const user = await accountNamed(this.repositories, username);
    const stored = user && (await this.repositories.koreaderKeys.find(user.id));
    const matches = await this.passwords.verify(stored?.keyHash ?? (await this.dummy()), keyMd5);
    if (!user || !stored || !matches) {
      await this.throttle.recordFailure(attempt);
      throw new DomainError("Unauthorized", "invalid username or sync key");
    }
    await this.throttle.recordSuccess(attempt);
    assertMaySignIn(user, this.emailConfirmationRequired);
    return user;
  }

  /** A hash that no key matches, made once. */
  private dummy(): Promise<string> {
    return (this.dummyHash ??= this.passwords.hash(randomBase64url(32)));
  }
}
