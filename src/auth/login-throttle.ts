/**
 * Failed-login throttling, in memory: sliding windows of failure times under three keys.
 *
 *   address            every failure from one client address, whatever the username: a hard
 *                      limit (`maxAddressFailures`) against one host guessing or spraying.
 *   address + account  failures from one address for one account: a hard limit (`maxFailures`).
 *   account            failures for one account from anywhere: a soft limit. Once it holds
 *                      `maxFailures`, only addresses that have not failed for this account in
 *                      the window may still try, so failures from elsewhere cannot lock the owner
 *                      out (their password from their usual address still works) while each
 *                      further address of an attacker gets one guess.
 *
 * Over a limit, attempts are refused with 429 (and the seconds to wait) before the password is
 * checked. Failures are kept in the database (only failures are written), so that every
 * process of `serve --workers` and every instance on one PostgreSQL counts the same ones: an
 * attacker gains nothing by reaching another process.
 */
import type { Repositories } from "../db";
import { RateLimitedError } from "../errors";

/** Where a sign-in attempt comes from and which account it names (the username as the lookup folds it). */
export interface SignInAttempt {
  address: string;
  account: string;
}

export interface ThrottleLimits {
  maxFailures: number;
  maxAddressFailures: number;
  windowMs: number;
}

export class LoginThrottle {
  constructor(
    private readonly repositories: Pick<Repositories, "loginFailures">,
    private readonly limits: ThrottleLimits,
  ) {}

  /** Throws 429 (with the seconds to wait) when the attempt is over a limit. */
  async assertAllowed(attempt: SignInAttempt): Promise<void> {
    const now = Date.now();
    const keys = keysOf(attempt);
    const { maxFailures, maxAddressFailures } = this.limits;
    const failures = await this.repositories.loginFailures.recent(Object.values(keys), new Date(now - this.limits.windowMs));
    const recent = (key: string) => failures.get(key) ?? [];
    const pairFailures = recent(keys.pair);
    const waits = [this.waitMs(recent(keys.address), maxAddressFailures, now), this.waitMs(pairFailures, maxFailures, now)];
    if (pairFailures.length > 0) {
      // The soft account limit binds only addresses that have failed for the account: until the
      // account drops under its limit, or until this address's failures leave the window.
      const accountWait = this.waitMs(recent(keys.account), maxFailures, now);
      waits.push(Math.min(accountWait, pairFailures[pairFailures.length - 1]! + this.limits.windowMs - now));
    }
    const waitMs = Math.max(...waits);
    if (waitMs > 0) {
      throw new RateLimitedError("too many failed sign-in attempts; try again later", Math.max(1, Math.ceil(waitMs / 1000)));
    }
  }

  async recordFailure(attempt: SignInAttempt): Promise<void> {
    const now = Date.now();
    await this.repositories.loginFailures.record(Object.values(keysOf(attempt)), new Date(now), new Date(now - this.limits.windowMs));
  }

  /**
   * The address proved it knows the password: its failures for the account are forgiven. The
   * account's own count stays, so a success does not reopen it to addresses that failed.
   */
  async recordSuccess(attempt: SignInAttempt): Promise<void> {
    await this.repositories.loginFailures.forget(keysOf(attempt).pair);
  }

  /** How long until fewer than `limit` of these failures are inside the window; 0 when already. */
  private waitMs(recent: number[], limit: number, now: number): number {
    if (recent.length < limit) return 0;
    return recent[recent.length - limit]! + this.limits.windowMs - now;
  }
}

/** The keys of an attempt (JSON keeps the pair unambiguous whatever the two hold; PostgreSQL text takes no NUL). */
function keysOf({ address, account }: SignInAttempt) {
  return { address: `ip:${address}`, pair: `ip-user:${JSON.stringify([address, account])}`, account: `user:${account}` };
}
