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
 * checked. Kept in memory on purpose: per process, no database writes, reset on restart.
 */
import { RateLimitedError } from "../errors";

/** Above this many tracked keys, entries without recent failures are swept out. */
const SWEEP_THRESHOLD = 10_000;

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
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limits: ThrottleLimits) {}

  /** Throws 429 (with the seconds to wait) when the attempt is over a limit. */
  assertAllowed(attempt: SignInAttempt): void {
    const now = Date.now();
    const keys = keysOf(attempt);
    const { maxFailures, maxAddressFailures } = this.limits;
    const pairFailures = this.recent(keys.pair, now);
    const waits = [this.waitMs(this.recent(keys.address, now), maxAddressFailures, now), this.waitMs(pairFailures, maxFailures, now)];
    if (pairFailures.length > 0) {
      // The soft account limit binds only addresses that have failed for the account: until the
      // account drops under its limit, or until this address's failures leave the window.
      const accountWait = this.waitMs(this.recent(keys.account, now), maxFailures, now);
      waits.push(Math.min(accountWait, pairFailures[pairFailures.length - 1]! + this.limits.windowMs - now));
    }
    const waitMs = Math.max(...waits);
    if (waitMs > 0) {
      throw new RateLimitedError("too many failed sign-in attempts; try again later", Math.max(1, Math.ceil(waitMs / 1000)));
    }
  }

  recordFailure(attempt: SignInAttempt): void {
    const now = Date.now();
    if (this.failures.size > SWEEP_THRESHOLD) this.sweep(now);
    for (const key of Object.values(keysOf(attempt))) this.failures.set(key, [...this.recent(key, now), now]);
  }

  /**
   * The address proved it knows the password: its failures for the account are forgiven. The
   * account's own count stays, so a success does not reopen it to addresses that failed.
   */
  recordSuccess(attempt: SignInAttempt): void {
    this.failures.delete(keysOf(attempt).pair);
  }

  /** How long until fewer than `limit` of these failures are inside the window; 0 when already. */
  private waitMs(recent: number[], limit: number, now: number): number {
    if (recent.length < limit) return 0;
    return recent[recent.length - limit]! + this.limits.windowMs - now;
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => at > now - this.limits.windowMs);
  }

  private sweep(now: number): void {
    for (const key of this.failures.keys()) {
      if (this.recent(key, now).length === 0) this.failures.delete(key);
    }
  }
}

function keysOf({ address, account }: SignInAttempt) {
  return { address: `ip:${address}`, pair: `ip-user:${address}\0${account}`, account: `user:${account}` };
}
