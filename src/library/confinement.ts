/**
 * One rule for every path the service reads below a library: it must resolve (symbolic links
 * followed) to a place inside the library's own canonical folder. The scanner (./walker.ts)
 * does not follow links that lead out, and serving re-checks a book's file at request time,
 * because a link may be changed to point elsewhere after the scan.
 */
import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { sep } from "node:path";

/** Whether `inner` is `outer` or lies below it (both canonical). */
function isWithin(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

export type Resolution = { kind: "inside"; path: string } | { kind: "outside"; path: string } | { kind: "unresolvable"; error: NodeJS.ErrnoException };

/** Where `path` really leads, judged against the canonical `root`. */
export async function resolveWithin(root: string, path: string): Promise<Resolution> {
  try {
    return judged(root, await realpath(path));
  } catch (error) {
    return { kind: "unresolvable", error: error as NodeJS.ErrnoException };
  }
}

/**
 * resolveWithin without the thread-pool round trip, for serving: a page request's realpath of a
 * file the system has just seen takes microseconds, and the promise version also split each
 * page answer into several socket writes (measured for issue 14).
 */
export function resolveWithinNow(root: string, path: string): Resolution {
  try {
    // The native realpath (realpath(3)): half the cost of the JavaScript one, same answer.
    return judged(root, realpathSync.native(path));
  } catch (error) {
    return { kind: "unresolvable", error: error as NodeJS.ErrnoException };
  }
}

function judged(root: string, real: string): Resolution {
  return isWithin(root, real) ? { kind: "inside", path: real } : { kind: "outside", path: real };
}
