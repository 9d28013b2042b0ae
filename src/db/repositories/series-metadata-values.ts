/**
 * The series' genres, tags and authors one per row in `series_metadata_values` (issue 32), kept
 * equal to the series' JSON columns of the same names: written only here, with them (by the
 * settlement of a series from its books and by an admin's edit). The filters of series lists
 * read them through the table's (kind, key) index instead of every book's JSON, and the value
 * lists (Komga's /api/v1/genres, /tags) are a scan of this small table.
 */
import { and, asc, eq, inArray, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../database";
import type { Author } from "../../formats/contract";

export type SeriesValueKind = "genre" | "tag" | "author";

/** The series' lists a write changes (an absent one is left as it is). */
export interface SeriesValueLists {
  genres?: string[];
  tags?: string[];
  authors?: Author[];
}

/** The key a value is found by: filters ignore case. */
export const valueKey = (value: string): string => value.toLowerCase();

/** Letters beyond ASCII whose case storedKeysOf tries both ways: 2^5 keys at most. */
const MAX_FOLDED_LETTERS = 5;

/**
 * The keys a row holding `value` (in any case) may carry: valueKey's, and those SQLite's lower()
 * made when migration 0021 filled the table from the books already catalogued. That lowercases
 * ASCII letters only ("Épouvante" kept its É), and such a row keeps its key until its series is
 * settled again by a scan or an edit, which writes valueKey's. So each letter beyond ASCII that
 * has a capital of its own is tried in both cases (the first MAX_FOLDED_LETTERS of them); a
 * value in ASCII has one key.
 */
function storedKeysOf(value: string): string[] {
  const letters = [...valueKey(value)];
  const foldable = letters.flatMap((letter, index) => {
    const capital = letter.toUpperCase();
    return letter > "\u007f" && capital !== letter && [...capital].length === 1 ? [index] : [];
  });
  const tried = foldable.slice(0, MAX_FOLDED_LETTERS);
  const keys: string[] = [];
  for (let capitals = 0; capitals < 1 << tried.length; capitals++) {
    keys.push(letters.map((letter, index) => (tried.includes(index) && capitals & (1 << tried.indexOf(index)) ? letter.toUpperCase() : letter)).join(""));
  }
  return keys;
}

/** Replaces the rows of each list given by its values (one row per value ignoring case; an author's per role). */
export async function replaceSeriesValues(database: Database, seriesId: string, lists: SeriesValueLists): Promise<void> {
  const table = database.tables.seriesMetadataValues;
  const db = database.handle();
  const rows = new Map<string, typeof table.$inferInsert>();
  const add = (kind: SeriesValueKind, value: string, role = "") => {
    const key = valueKey(value);
    const id = `${kind}\u0000${key}\u0000${role}`;
    if (!rows.has(id)) rows.set(id, { seriesId, kind, key, value, role });
  };
  const kinds: SeriesValueKind[] = [];
  if (lists.genres) kinds.push("genre");
  if (lists.tags) kinds.push("tag");
  if (lists.authors) kinds.push("author");
  if (kinds.length === 0) return;
  for (const genre of lists.genres ?? []) add("genre", genre);
  for (const tag of lists.tags ?? []) add("tag", tag);
  for (const author of lists.authors ?? []) add("author", author.name, author.role);
  await db.delete(table).where(and(eq(table.seriesId, seriesId), inArray(table.kind, kinds)));
  if (rows.size > 0) await db.insert(table).values([...rows.values()]);
}

/**
 * The series holds a value of this kind equal (ignoring case) to one of these (`values`
 * undefined: any value); an author matches by name, and by role when given. Written as
 * `series.id IN (the series holding it)`, not a correlated EXISTS: the databases then read the
 * matching series from the (kind, key) index and look the rest up by id, so the filter drives
 * the query instead of being tested on every series the other conditions leave (on SQLite, after
 * the costlier read-status subqueries: 150 ms against 4 at 100,000 books, issue 32).
 */
export function seriesHasValue(database: Database, seriesId: SQLWrapper, kind: SeriesValueKind, values: string[] | undefined, role?: string): SQL {
  const table = database.tables.seriesMetadataValues;
  const holding = database
    .handle()
    .select({ seriesId: table.seriesId })
    .from(table)
    .where(
      and(
        eq(table.kind, kind),
        values === undefined ? undefined : inArray(table.key, values.flatMap(storedKeysOf)),
        role === undefined ? undefined : sql`lower(${table.role}) = ${role.toLowerCase()}`,
      ),
    );
  return sql`${seriesId} in ${holding}`;
}

/** The distinct values of a kind over the series `where` admits (one spelling per key), sorted; authors with their roles. */
export async function seriesValuesOf(database: Database, kind: SeriesValueKind, where: SQL | undefined): Promise<{ value: string; role: string }[]> {
  const { seriesMetadataValues: table, series } = database.tables;
  return database
    .handle()
    .select({ value: sql<string>`min(${table.value})`, role: table.role })
    .from(table)
    .innerJoin(series, eq(series.id, table.seriesId))
    .where(and(eq(table.kind, kind), where))
    .groupBy(table.key, table.role)
    .orderBy(asc(table.key), asc(table.role));
}
