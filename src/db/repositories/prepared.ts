/**
 * Statements for hot paths (serving a page, checking an API key), built through drizzle and
 * prepared once, on first use: rebuilding a query and preparing it again on every call cost
 * more than running it. Not at construction, because SQLite prepares against the tables, which
 * exist only once migrations have run. Build them on `Database.root`, never on a transaction's
 * handle (which ends with its transaction): keep them to reads.
 */
export function preparedOnce<T>(build: () => T): () => T {
  let statement: T | undefined;
  return () => (statement ??= build());
}
