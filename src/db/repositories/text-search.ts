/**
 * Case-insensitive "contains" for the `q` parameters, the same on both databases:
 * `lower(column) LIKE '%text%'` with LIKE's own wildcards (`%`, `_`) and the escape character
 * escaped, so a query for "100%" finds "100%" and nothing else. SQLite's lower() folds ASCII
 * letters only; PostgreSQL folds every letter.
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

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
