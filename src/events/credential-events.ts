/**
 * Changes to what credentials admit, for the request caches of every process and instance:
 *   revoked        a user's credentials were cut back (password change or reset, a raised token
 *                  version, a deleted API key, a disabled, demoted or deleted
 *                  account): each process drops the account rows and API keys it reuses for
 *                  requests (src/db/repositories/recent-reads.ts), so the change applies
 *                  everywhere within the relay's latency instead of after the reuse's two seconds.
 *   throttleChanged  a failed sign-in was counted, or an address's failures forgiven: each
 *                  process drops the throttle decisions it remembers about that address or
 *                  that account (src/auth/login-throttle.ts).
 * Published after the change is committed, so a process that reads again sees it.
 */
import { EventBus } from "./event-bus";

export type CredentialEvent = { kind: "revoked"; userId: string } | { kind: "throttleChanged"; address: string; account: string };

export class CredentialEvents extends EventBus<CredentialEvent> {}
