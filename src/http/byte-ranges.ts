/**
 * Single byte ranges (RFC 9110 section 14): `bytes=first-last`, `bytes=first-` and the suffix
 * `bytes=-length`. Requests for several ranges get the whole file (a server may ignore Range);
 * so do ranges that do not parse, and requests whose `If-Range` validator no longer matches.
 */

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export type RangeDecision = { kind: "whole" } | { kind: "partial"; range: ByteRange } | { kind: "unsatisfiable" };

export interface Validators {
  etag: string;
  lastModified: Date;
}

export function decideRange(request: Request, size: number, validators: Validators): RangeDecision {
  const header = request.headers.get("range");
  if (!header || !ifRangeHolds(request.headers.get("if-range"), validators)) return { kind: "whole" };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "whole" };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", range: { start: Math.max(size - suffix, 0), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Number(last);
  if (end < start) return { kind: "whole" }; // invalid: ignored, as the RFC allows
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", range: { start, end: Math.min(end, size - 1) } };
}

/** `If-Range`: the range applies only if the client's validator is still current (strong ETag or exact date). */
function ifRangeHolds(ifRange: string | null, validators: Validators): boolean {
  if (ifRange === null) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === validators.etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && Math.floor(validators.lastModified.getTime() / 1000) === Math.floor(date / 1000);
}
