/**
 * Combines the metadata found for one book. Per field, the highest-priority source that
 * states a value wins (spec, "Metadata priority"): ComicInfo.xml > EPUB OPF > PDF properties >
 * file name > parent folder name. The result also says where each field came from.
 */
import type { BookMetadata, MetadataSource } from "../../formats/contract.ts";

export const SOURCE_PRIORITY: readonly MetadataSource[] = ["comicinfo", "opf", "pdf", "filename", "folder"];

export interface MetadataInput {
  source: MetadataSource;
  values: BookMetadata;
}

export type MetadataField = keyof BookMetadata;

export interface MergedMetadata {
  values: BookMetadata;
  /** For every field present in `values`, the source it was taken from. */
  sources: Partial<Record<MetadataField, MetadataSource>>;
  /** BookDto `number`: the number as an int32, null when it is not a whole number ("12.5"). */
  number: number | null;
  /** BookDto `numberSort`: the number as a float for ordering (12.5), null when there is none. */
  numberSort: number | null;
}

export function mergeMetadata(inputs: readonly MetadataInput[]): MergedMetadata {
  const ordered = [...inputs].sort((a, b) => SOURCE_PRIORITY.indexOf(a.source) - SOURCE_PRIORITY.indexOf(b.source));
  const values: Record<string, unknown> = {};
  const sources: Partial<Record<MetadataField, MetadataSource>> = {};
  for (const { source, values: candidate } of ordered) {
    for (const [field, value] of Object.entries(candidate) as [MetadataField, unknown][]) {
      if (field in values || !hasValue(value)) continue;
      values[field] = value;
      sources[field] = source;
    }
  }
  const merged = values as BookMetadata;
  return { values: merged, sources, ...parseBookNumber(merged.number) };
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** "12" -> 12 / 12; "12.5" -> null / 12.5; "7a" -> null / 7; "Annual" -> null / null. */
export function parseBookNumber(raw: string | undefined): { number: number | null; numberSort: number | null } {
  const match = /^\s*(-?\d+(?:\.\d+)?)(.*)$/.exec(raw ?? "");
  if (!match?.[1]) return { number: null, numberSort: null };
  const numberSort = Number.parseFloat(match[1]);
  const whole = Number.isInteger(numberSort) && match[2]?.trim() === "" && numberSort >= INT32_MIN && numberSort <= INT32_MAX;
  return { number: whole ? numberSort : null, numberSort };
}

function hasValue(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return value.trim() !== "";
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
