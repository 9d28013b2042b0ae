/**
 * The other side of a real PostgreSQL deadlock, for tests: a transaction on a connection of its
 * own takes one row, then waits for a row the code under test holds. Its own deadlock check is
 * set to a minute, so the check of the code under test (after the server's deadlock_timeout,
 * 1 s by default) finds the cycle first and rolls that side back, never this one.
 */
import type postgres from "postgres";
import { waitFor } from "./server-processes";

type Statement = (tx: postgres.TransactionSql) => Promise<unknown>;

export function takeThenWait(connection: postgres.Sql, monitor: postgres.Sql, take: Statement, thenWaitFor: Statement) {
  let pid: number | undefined;
  const done = connection.begin(async (tx) => {
    await tx`SET LOCAL deadlock_timeout = '1min'`;
    await take(tx);
    pid = (await tx`SELECT pg_backend_pid() AS pid`)[0]!.pid as number;
    await thenWaitFor(tx);
  });
  return {
    /** Settles when the transaction has committed (it is not the one rolled back). */
    done,
    /** Resolves once it waits for the second row. */
    waiting: () =>
      waitFor(async () => {
        if (pid === undefined) return false;
        const [activity] = await monitor`SELECT wait_event_type FROM pg_stat_activity WHERE pid = ${pid}`;
        return activity?.wait_event_type === "Lock";
      }, "the other transaction to wait for its second row"),
  };
}
