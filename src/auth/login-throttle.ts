/**
 * Failed-login throttling: sliding windows of failure times under three keys.
 *
 *   address            every failure from one client address, whatever the username: a hard
 *                      limit (`maxAddressFailures`) against one host guessing or spraying.
 *   address + account  failures from one address for one account: a hard limit (`maxFailures`).
 *   account            failures for one account from anywhere: a soft limit. Once it holds
 *                      `maxFailures`, an address that has failed for this account in the window
 *                      is refused, unless it signed in to the account within TRUSTED_DAYS (the
 *                      owner's usual address). So an attacker spread over many addresses gets
 *                      one guess per address, while failures from elsewhere cannot lock the
 *                      owner out: neither the right password from an address that has not
 *                      failed, nor a typo from an address they signed in from (which only its
 *                      own limit binds).
 *
 * Over a limit, attempts are refused with 429 (and the seconds to wait) before the password is
 * checked. Failures and sign-ins are kept in the database (nothing is written for an attempt
 * that is merely allowed), so that every process of `serve --workers` and every instance on one
 * PostgreSQL counts the same ones: an attacker gains nothing by reaching another process.
 *
 * HTTP Basic asks for a decision on every request (a reader: one per page), so decisions are
 * remembered per address and account. Only a new failure can tighten one (failures only age out
 * of the window otherwise), and every counted failure, in this process or announced by another
 * (src/events/credential-events.ts), drops the decisions about its address or its account, and
 * spoils the reads of decisions about them still in flight; nothing else is touched, so a
 * password spray against other accounts from other addresses costs readers nothing (neither a
 * database read per request nor a scan of every remembered decision per failure). As a safety
 * net for a lost announcement, no decision stands longer than DECISION_MAX_AGE_MS; a refusal
 * is read again once its end has passed.
 */
import type { Repositories } from "../db";
import { RateLimitedError } from "../errors";
import type { CredentialEvents } from "../events/credential-events";
import { normalizeUsername } from "./usernames";

/** Where a sign-in attempt comes from and which account it names (the username as the lookup folds it). */
export interface SignInAttempt {
  address: string;
  account: string;
}

/** The attempt to sign in as `username` from `address` (accounts are counted as sign-in looks them up: NFKC, whatever the case). */
export const attemptOf = (username: string, address: string): SignInAttempt => ({ address, account: normalizeUsername(username).toLowerCase() });

export interface ThrottleLimits {
  maxFailures: number;
  maxAddressFailures: number;
  windowMs: number;
}

/** How long an address that signed in to an account is spared the account-wide limit. */
const TRUSTED_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;
/** How long a remembered decision stands at most (when an announced failure was lost). */
const DECISION_MAX_AGE_MS = 2000;
const REMEMBERED_DECISIONS = 10_000;

interface Decision extends SignInAttempt {
  /** 0 when allowed; else when the refusal ends (ms). */
  refusedUntil: number;
  decidedAt: number;
}

/** A decision being read from the database; a change about its address or account spoils it. */
interface DecisionRead extends SignInAttempt {
  spoiled: boolean;
}

/** Remembered decisions by address and account pair, indexed by each half so a change drops only its own. */
class RememberedDecisions {
  private readonly byPair = new Map<string, Decision>();
  private readonly pairsByAddress = new Map<string, Set<string>>();
  private readonly pairsByAccount = new Map<string, Set<string>>();

  get(pair: string): Decision | undefined {
    return this.byPair.get(pair);
  }

  set(pair: string, decision: Decision): void {
    this.delete(pair);
    // The oldest goes first: a Map iterates in insertion order.
    if (this.byPair.size >= REMEMBERED_DECISIONS) this.delete(this.byPair.keys().next().value!);
    this.byPair.set(pair, decision);
    indexed(this.pairsByAddress, decision.address).add(pair);
    indexed(this.pairsByAccount, decision.account).add(pair);
  }

  delete(pair: string): void {
    const decision = this.byPair.get(pair);
    if (!decision) return;
    this.byPair.delete(pair);
    unindex(this.pairsByAddress, decision.address, pair);
    unindex(this.pairsByAccount, decision.account, pair);
  }

  forgetAbout({ address, account }: SignInAttempt): void {
    for (const pair of [...(this.pairsByAddress.get(address) ?? []), ...(this.pairsByAccount.get(account) ?? [])]) this.delete(pair);
  }
}

const indexed = (index: Map<string, Set<string>>, key: string): Set<string> => {
  let pairs = index.get(key);
  if (!pairs) index.set(key, (pairs = new Set()));
  return pairs;
};

const unindex = (index: Map<string, Set<string>>, key: string, pair: string): void => {
  const pairs = index.get(key);
  pairs?.delete(pair);
  if (pairs?.size === 0) index.delete(key);
};

export class LoginThrottle {
  private readonly decisions = new RememberedDecisions();
  private readonly readsInFlight = new Set<DecisionRead>();

  constructor(
    private readonly repositories: Pick<Repositories, "loginFailures" | "trustedSignIns">,
    private readonly limits: ThrottleLimits,
    private readonly events: CredentialEvents,
  ) {
    events.subscribe((event) => event.kind === "throttleChanged" && this.forgetDecisionsAbout(event));
  }

  /** Throws 429 (with the seconds to wait) when the attempt is over a limit. */
  async assertAllowed(attempt: SignInAttempt): Promise<void> {
    const now = Date.now();
    const key = keysOf(attempt).pair;
    let decision = this.decisions.get(key);
    const stale = !decision || now - decision.decidedAt >= DECISION_MAX_AGE_MS;
    if (stale || (decision!.refusedUntil > 0 && decision!.refusedUntil <= now)) {
      this.decisions.delete(key);
      const read: DecisionRead = { ...attempt, spoiled: false };
      this.readsInFlight.add(read);
      try {
        const waitMs = await this.waitMs(attempt, now);
        decision = { ...attempt, refusedUntil: waitMs > 0 ? now + waitMs : 0, decidedAt: now };
      } finally {
        this.readsInFlight.delete(read);
      }
      // Kept only if nothing about it changed while it was read (else the next attempt reads again).
      if (!read.spoiled) this.decisions.set(key, decision);
    }
    if (decision!.refusedUntil > now) {
      const seconds = Math.max(1, Math.ceil((decision!.refusedUntil - now) / 1000));
      throw new RateLimitedError("too many failed sign-in attempts; try again later", seconds);
    }
  }

  /** How long the attempt must wait (ms); 0 when it may go ahead. */
  private async waitMs(attempt: SignInAttempt, now: number): Promise<number> {
    const keys = keysOf(attempt);
    const { maxFailures, maxAddressFailures } = this.limits;
    const failures = await this.repositories.loginFailures.recent(Object.values(keys), new Date(now - this.limits.windowMs));
    const recent = (key: string) => failures.get(key) ?? [];
    const pairFailures = recent(keys.pair);
    const waits = [this.limitWaitMs(recent(keys.address), maxAddressFailures, now), this.limitWaitMs(pairFailures, maxFailures, now)];
    const accountWait = this.limitWaitMs(recent(keys.account), maxFailures, now);
    if (pairFailures.length > 0 && accountWait > 0 && !(await this.trusted(attempt, now))) {
      // The soft account limit binds only addresses that have failed for the account (and never
      // signed in to it): until the account drops under its limit, or until this address's
      // failures leave the window.
      waits.push(Math.min(accountWait, pairFailures[pairFailures.length - 1]! + this.limits.windowMs - now));
    }
    return Math.max(0, ...waits);
  }

  private trusted({ address, account }: SignInAttempt, now: number): Promise<boolean> {
    return this.repositories.trustedSignIns.signedInSince(address, account, new Date(now - TRUSTED_DAYS * DAY_MS));
  }

  async recordFailure(attempt: SignInAttempt): Promise<void> {
    const now = Date.now();
    await this.repositories.loginFailures.record(Object.values(keysOf(attempt)), new Date(now), new Date(now - this.limits.windowMs));
    this.announceChange(attempt);
  }

  /**
   * The address proved it knows the password: its failures for the account are forgiven, and
   * it is spared the account-wide limit for TRUSTED_DAYS. The account's own count stays, so a
   * success does not reopen it to other addresses that failed.
   */
  async recordSuccess(attempt: SignInAttempt): Promise<void> {
    const now = Date.now();
    await this.repositories.trustedSignIns.record(attempt.address, attempt.account, new Date(now), new Date(now - TRUSTED_DAYS * DAY_MS));
    if (await this.repositories.loginFailures.forget(keysOf(attempt).pair)) this.announceChange(attempt);
  }

  /** Every process (this one included) drops its remembered decisions about the attempt's address or account. */
  private announceChange({ address, account }: SignInAttempt): void {
    this.events.publish({ kind: "throttleChanged", address, account });
  }

  private forgetDecisionsAbout(change: SignInAttempt): void {
    this.decisions.forgetAbout(change);
    for (const read of this.readsInFlight) {
      if (read.address === change.address || read.account === change.account) read.spoiled = true;
    }
  }

  /** How long until fewer than `limit` of these failures are inside the window; 0 when already. */
  private limitWaitMs(recent: number[], limit: number, now: number): number {
    if (recent.length < limit) return 0;
    return recent[recent.length - limit]! + this.limits.windowMs - now;
  }
}

/** The keys of an attempt (JSON keeps the pair unambiguous whatever the two hold; PostgreSQL text takes no NUL). */
function keysOf({ address, account }: SignInAttempt) {
  return { address: `ip:${address}`, pair: `ip-user:${JSON.stringify([address, account])}`, account: `user:${account}` };
}
