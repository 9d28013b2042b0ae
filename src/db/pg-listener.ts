/**
 * LISTEN on a PostgreSQL connection of its own, for Database.notifications.
 *
 * Not postgres.js's `sql.listen`: it re-listens after a dropped connection through listeners it
 * creates itself, which the `unlisten` it returned cannot remove, and so it re-listens when
 * `end()` closes the connection too: after an outage a stopped process kept a fresh connection
 * open and never exited. Here the channels are ours: every close of the connection (until
 * `close()`) issues the LISTENs again, which the driver sends once it has reconnected (its
 * `backoff` paces the attempts while the server is away).
 */
import type postgres from "postgres";

export interface PostgresListener {
  /** Calls `receive` with each payload sent on `channel`; resolves once listening. */
  listen(channel: string, receive: (payload: string) => void): Promise<void>;
  close(): Promise<void>;
}

/** `connect(extra)`: a postgres.js client on the database with `extra` options added. */
export function openListener(connect: (extra: postgres.Options<{}>) => postgres.Sql): PostgresListener {
  const receivers = new Map<string, (payload: string) => void>();
  let closing = false;
  const listenTo = (channel: string) => connection.unsafe(`listen "${channel.replaceAll('"', '""')}"`);
  const relisten = () => {
    if (closing) return;
    // A failed attempt closes the connection again, which comes back here.
    for (const channel of receivers.keys()) listenTo(channel).catch(() => undefined);
  };
  const extra = {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onclose: () => queueMicrotask(relisten),
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
      await connection.end({ timeout: 1 });
    },
  };
}
