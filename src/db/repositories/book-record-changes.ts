/**
 * Whether re-reading a book changed its catalogue record: its columns (but those an admin
 * locked), its pages and its analysis errors. A scan counts a book as updated, and writes it,
 * only when something did (a deep scan re-reads every book, and most are as they were).
 */
import type { BookContent, BookErrorRecord, BookRow, PageRecord } from "./catalogue";

export interface StoredBookRecord {
  row: BookRow;
  pages: PageRecord[];
  errors: Pick<BookErrorRecord, "errorType" | "message" | "details">[];
}

/** Errors a scan does not write (thumbnails are made, and their errors recorded, after it). */
const NOT_FROM_ANALYSIS: ReadonlySet<string> = new Set(["thumbnail"]);

export function recordChanged(
  stored: StoredBookRecord,
  content: BookContent,
  pages: readonly PageRecord[],
  errors: readonly BookErrorRecord[],
): boolean {
  if (stored.row.deleted) return true;
  const locked = new Set(stored.row.lockedFields);
  for (const [field, value] of Object.entries(content) as [keyof BookContent, unknown][]) {
    if (!locked.has(field) && canonical(stored.row[field]) !== canonical(value)) return true;
  }
  const pageKey = (page: PageRecord) => canonical([page.number, page.fileName, page.mediaType, page.width, page.height, page.size]);
  if (canonical(stored.pages.map(pageKey)) !== canonical(pages.map(pageKey))) return true;
  const errorKeys = (list: readonly Pick<BookErrorRecord, "errorType" | "message" | "details">[]) =>
    list
      .filter((error) => !NOT_FROM_ANALYSIS.has(error.errorType))
      .map((error) => canonical([error.errorType, error.message, error.details]))
      .sort();
  return canonical(errorKeys(stored.errors)) !== canonical(errorKeys(errors));
}

/**
 * A value as JSON with object keys sorted and absent values dropped: PostgreSQL's jsonb returns
 * keys in its own order, and a stored JSON object has no undefined members.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, member: unknown) => {
    if (member === null || typeof member !== "object" || Array.isArray(member)) return member;
    const entries = Object.entries(member as Record<string, unknown>).filter(([, inner]) => inner !== undefined);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}
