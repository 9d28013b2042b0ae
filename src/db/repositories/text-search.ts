/**
 * Case-insensitive "contains" for the `q` parameters, the same on both databases:
 * `lower(column) LIKE '%text%'` with LIKE's own wildcards (`%`, `_`) and the escape character
 * escaped, so a query for "100%" finds "100%" and nothing else. SQLite's lower() folds ASCII
 * letters only; PostgreSQL folds every letter.
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../database";

/** The LIKE pattern matching `text` anywhere, lower-cased, with `\` as the escape character. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

export function containsIgnoringCase(expression: SQLWrapper, text: string): SQL {
  return sql`lower(${expression}) like ${containsPattern(text)} escape '\\'`;
}

/** The same for a column whose text is already stored lower-cased (no lower() per row). */
export function containsLowerCased(expression: SQLWrapper, text: string): SQL {
  return sql`${expression} like ${containsPattern(text)} escape '\\'`;
}

/**
 * Text search through an index (issue 14). The indexes hold trigrams, so they serve queries of
 * three characters or more; shorter ones are answered by the LIKE conditions above alone. The
 * candidate conditions below only narrow: callers AND them with those LIKE conditions, so what
 * a query finds is exactly what the LIKE scan found. SQLite: the FTS5 trigram tables of
 * migration 0007 (`books_search`, `series_search`); PostgreSQL: the LIKE itself, written so
 * that the planner can drive from the pg_trgm GIN indexes of the same migration.
 */
function indexable(text: string): string | undefined {
  const lowered = text.toLowerCase();
  return [...lowered].length >= 3 ? lowered : undefined;
}

/** An FTS5 phrase: the text as one quoted string (substring match with the trigram tokenizer). */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * Books whose search text or whose series' name may contain `text`, as a condition on `books`
 * in the outer query; undefined when no index serves the query. One IN over the union of both
 * sets, so the database reads the matches from the indexes instead of testing every book.
 */
export function bookTextCandidates(database: Database, text: string): SQL | undefined {
  const query = indexable(text);
  if (query === undefined) return undefined;
  const { books } = database.tables;
  if (database.dialect === "sqlite") {
    const phrase = ftsPhrase(query);
    return sql`${books}.rowid in (
      select rowid from books_search where books_search match ${phrase}
      union
      select b.rowid from books b where b.series_id in (
        select s.id from series s where s.rowid in (select rowid from series_search where series_search match ${phrase})))`;
  }
  const pattern = containsPattern(query);
  // `= any(array(...))` rather than `in (...)`: the planner then reads the matches by primary key
  // instead of hashing every book to join them (22 ms against 10 ms for "series 042" on 10,000 books).
  return sql`${books.id} = any(array(
    select b.id from books b where b.search_text like ${pattern} escape '\\'
    union
    select b.id from books b where b.series_id in (select s.id from series s where lower(s.name) like ${pattern} escape '\\')))`;
}

/** Series whose name may contain `text`, as a condition on `series` in the outer query (see above). */
export function seriesNameCandidates(database: Database, text: string): SQL | undefined {
  const query = indexable(text);
  // PostgreSQL's `lower(name) like ...` (containsIgnoringCase) uses the expression index as it is.
  if (query === undefined || database.dialect !== "sqlite") return undefined;
  return sql`${database.tables.series}.rowid in (select rowid from series_search where series_search match ${ftsPhrase(query)})`;
}
