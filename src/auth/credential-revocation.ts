/**
 * Revocations reach every process and instance at once. The account row and the API key behind
 * a request are reused for up to two seconds (src/db/repositories/recent-reads.ts), so that a
 * reader's pages cost no query; a process's own writes end that reuse, but a change made by
 * another process (a `serve --workers` sibling, another instance on the same PostgreSQL) would
 * stay unseen for those seconds. Whoever revokes announces it once committed, through the event
 * relay (src/events/credential-events.ts: IPC, LISTEN/NOTIFY), and every process drops what it
 * reuses: the next request reads the account and its key again.
 */
import type { Repositories } from "../db";
import type { CredentialEvents } from "../events/credential-events";

export class CredentialRevocations {
  constructor(
    repositories: Pick<Repositories, "users" | "apiKeys">,
    private readonly events: CredentialEvents,
  ) {
    events.subscribe((event) => {
      if (event.kind !== "revoked") return;
      repositories.users.forgetRecentReads();
      repositories.apiKeys.forgetRecentReads();
    });
  }

  /** Call once the change is committed (a process that reads again must see it). */
  announce(userId: string): void {
    this.events.publish({ kind: "revoked", userId });
  }
}
