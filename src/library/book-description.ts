/**
 * Turns one file's analysis into what the catalogue stores: merged metadata (embedded >
 * file name > folder name), the book's columns, its pages and its errors. A book that could
 * not be read is still described (from its name and folder) so it stays listed with its error.
 */
import { basename, dirname, extname } from "node:path";
import type { BookContent, BookErrorRecord, PageRecord, StoredBookMetadata } from "../db";
import type { BookMetadata } from "../formats/contract";
import type { BookAnalysis } from "../formats/registry";
import { mergeMetadata, type MergedMetadata, type MetadataInput } from "./metadata/merge";
import { parseFileName, parseFolderName } from "./metadata/filename";

export interface BookDescription {
  metadata: BookMetadata;
  sources: MergedMetadata["sources"];
  /** The book's columns, without where it lives (series, hash, path, size, time). */
  content: Omit<BookContent, "seriesId" | "fileHash" | "partialMd5" | "filePath" | "fileSize" | "fileModifiedAt">;
  pages: PageRecord[];
  errors: BookErrorRecord[];
}

/** What to record for a file no plugin could read: the format its extension suggests. */
export interface FormatGuess {
  format: string;
  mediaType: string;
}

export function describeBook(libraryRoot: string, filePath: string, analysis: BookAnalysis, guess: FormatGuess): BookDescription {
  const inputs: MetadataInput[] = [];
  if (analysis.result?.metadata) inputs.push(analysis.result.metadata);
  inputs.push({ source: "filename", values: parseFileName(basename(filePath)) });
  const folder = dirname(filePath);
  if (folder !== libraryRoot) inputs.push({ source: "folder", values: parseFolderName(basename(folder)) });
  const merged = mergeMetadata(inputs);
  const values = merged.values;

  const pages: PageRecord[] = (analysis.result?.pages ?? []).map((page, index) => ({ number: index + 1, ...page }));
  const occurredAt = new Date();
  const errors: BookErrorRecord[] = analysis.errors.map((error) => ({
    errorType: error.type,
    message: error.message,
    details: error.details ?? null,
    occurredAt,
  }));
  const fatal = analysis.result === null || pages.length === 0;
  const stored: StoredBookMetadata = {
    series: values.series,
    title: values.title,
    readingDirection: values.readingDirection,
    authors: values.authors,
    publisher: values.publisher,
    language: values.language,
    genres: values.genres,
    tags: values.tags,
    ageRating: values.ageRating,
    identifiers: values.identifiers,
    collections: values.collections,
    readingLists: values.readingLists,
    month: values.month,
    day: values.day,
    sources: merged.sources as Record<string, string>,
  };

  return {
    metadata: values,
    sources: merged.sources,
    pages,
    errors,
    content: {
      title: values.title ?? basename(filePath, extname(filePath)),
      titleSort: null,
      number: merged.number,
      numberSort: merged.numberSort,
      // The column holds whole volumes: "v03.5" is stored as volume 3.
      volume: values.volume === undefined ? null : Math.trunc(values.volume),
      year: values.year ?? null,
      summary: values.summary ?? null,
      metadata: stored,
      fileFormat: analysis.format ?? guess.format,
      mediaType: analysis.result?.mediaType ?? guess.mediaType,
      pageCount: pages.length,
      coverPage: analysis.result?.coverPage ?? null,
      analyzed: !fatal && pages.every((page) => page.width !== null && page.height !== null),
      analysisError: errors.length > 0 ? errors.map((error) => error.message).join("; ") : null,
    },
  };
}
