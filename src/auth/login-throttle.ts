/**
 * Failed-login throttling, in memory: a sliding window of failure times per key (the client IP
 * and the username are separate keys). Once a key holds `maxFailures` failures inside the window,
 * attempts under that key are refused with 429 until the oldest counted failure leaves the window.
 * Kept in memory on purpose: it is per process, costs no database writes, and resets on restart.
 */
import { RateLimitedError } from "../errors";

/** Above this many tracked keys, entries without recent failures are swept out. */
const SWEEP_THRESHOLD = 10_000;

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  /** Throws 429 (with the seconds to wait) when any of the keys is over the limit. */
  assertAllowed(keys: string[]): void {
    const now = Date.now();
    let waitMs = 0;
    for (const key of keys) {
      const recent = this.recent(key, now);
      if (recent.length >= this.maxFailures) {
        const freedAt = recent[recent.length - this.maxFailures]! + this.windowMs;
        waitMs = Math.max(waitMs, freedAt - now);
      }
    }
    if (waitMs > 0) {
      throw new RateLimitedError("too many failed sign-in attempts; try again later", Math.max(1, Math.ceil(waitMs / 1000)));
    }
  }

  recordFailure(keys: string[]): void {
    const now = Date.now();
    if (this.failures.size > SWEEP_THRESHOLD) this.sweep(now);
    for (const key of keys) this.failures.set(key, [...this.recent(key, now), now]);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => at > now - this.windowMs);
  }

  private sweep(now: number): void {
    for (const key of this.failures.keys()) {
      if (this.recent(key, now).length === 0) this.failures.delete(key);
    }
  }
}
