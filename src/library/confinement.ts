/**
 * One rule for every path the service reads below a library: it must resolve (symbolic links
 * followed) to a place inside the library's own canonical folder. The scanner (./walker.ts)
 * does not follow links that lead out, and serving re-checks a book's file at request time,
 * because a link may be changed to point elsewhere after the scan.
 */
import { realpath } from "node:fs/promises";
import { sep } from "node:path";

/** Whether `inner` is `outer` or lies below it (both canonical). */
export function isWithin(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

export type Resolution = { kind: "inside"; path: string } | { kind: "outside"; path: string } | { kind: "unresolvable"; error: NodeJS.ErrnoException };

/** Where `path` really leads, judged against the canonical `root`. */
export async function resolveWithin(root: string, path: string): Promise<Resolution> {
  try {
    const real = await realpath(path);
    return isWithin(root, real) ? { kind: "inside", path: real } : { kind: "outside", path: real };
  } catch (error) {
    return { kind: "unresolvable", error: error as NodeJS.ErrnoException };
  }
}
