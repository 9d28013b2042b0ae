/**
 * LISTEN on a PostgreSQL connection of its own, for Database.notifications.
 *
 * Not postgres.js's `sql.listen`: it re-listens after a dropped connection through listeners it
 * creates itself, which the `unlisten` it returned cannot remove, and so it re-listens when
 * `end()` closes the connection too: after an outage a stopped process kept a fresh connection
 * open and never exited. Here the channels are ours: every close of the connection (until
 * `close()`) issues the LISTENs again, after a pause that doubles from 50 ms to a second while
 * attempts fail (the driver's own backoff grows only when the socket fails, not when the server
 * refuses the session: starting up, too many clients; when the socket fails, its pause comes
 * on top of this one).
 */
import type postgres from "postgres";

/**
 * Seconds before a new attempt after `failures` failed ones: from 50 ms, doubling, at most a
 * second. The driver's reconnection (`backoff`) and this listener's LISTENs both pace by it.
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1);
}

export interface PostgresListener {
  /** Calls `receive` with each payload sent on `channel`; resolves once listening. */
  listen(channel: string, receive: (payload: string) => void): Promise<void>;
  close(): Promise<void>;
}

/** `connect(extra)`: a postgres.js client on the database with `extra` options added. */
export function openListener(connect: (extra: postgres.Options<{}>) => postgres.Sql): PostgresListener {
  const receivers = new Map<string, (payload: string) => void>();
  let closing = false;
  /** Attempts scheduled since the last LISTEN that worked: each waits twice as long as the one before. */
  let failedAttempts = 0;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const listenTo = (channel: string) => connection.unsafe(`listen "${channel.replaceAll('"', '""')}"`);
  const relisten = () => {
    if (closing || pending) return;
    pending = setTimeout(
      () => {
        pending = undefined;
        if (closing) return;
        // A failed attempt closes the connection again, which comes back here.
        Promise.all([...receivers.keys()].map(listenTo)).then(
          () => (failedAttempts = 0),
          () => undefined,
        );
      },
      reconnectDelaySeconds(failedAttempts++) * 1000,
    );
  };
  const extra = {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onclose: relisten,
    // The driver hands NotificationResponse messages to this option (its own `listen` is built
    // on it); the option is missing from its type declarations.
    onnotify: (channel: string, payload: string) => receivers.get(channel)?.(payload),
  };
  const connection = connect(extra as postgres.Options<{}>);
  return {
    async listen(channel, receive) {
      receivers.set(channel, receive);
      await listenTo(channel);
    },
    async close() {
      closing = true;
      clearTimeout(pending);
      await connection.end({ timeout: 1 });
    },
  };
}
