/**
 * How books group into series, one function per `series_strategy` of a library:
 * - series_volume: every folder holding books is a series (books at the library root group by
 *   their series name instead);
 * - flat: folders are ignored, the series comes from metadata or the file name;
 * - publisher_hierarchy: Publisher/Series/books, the first folder level being the publisher;
 * - calibre: Author/Title (id)/book.epub, series from the OPF (calibre:series), else each title
 *   is its own series.
 * The strategy decides only which series a book belongs to (its key). The series' name and
 * other fields are settled afterwards from all of its books (./series-settlement.ts); the name
 * given here is provisional, what a new series shows until its scan settles it.
 */
import { basename, dirname, relative, sep } from "node:path";
import type { BookMetadata, MetadataSource } from "../formats/contract";
import type { SeriesIdentity, SeriesStrategy } from "../db";

export interface SeriesInput {
  libraryRoot: string;
  filePath: string;
  metadata: BookMetadata;
  /** Where the merged `series` value came from. */
  seriesSource: MetadataSource | undefined;
}

const EMBEDDED: ReadonlySet<MetadataSource> = new Set(["comicinfo", "opf", "pdf"]);

/** A calibre title folder, "Title (12)", names the title without calibre's id. */
const CALIBRE_ID = /\s*\(\d+\)$/;

export function seriesFor(strategy: SeriesStrategy, input: SeriesInput): SeriesIdentity {
  const folder = dirname(input.filePath);
  const relativeFolder = relative(input.libraryRoot, folder);
  const embeddedSeries = input.seriesSource && EMBEDDED.has(input.seriesSource) ? input.metadata.series : undefined;
  const anySeries = input.metadata.series ?? input.metadata.title ?? stem(input.filePath);
  const base = {
    readingDirection: input.metadata.readingDirection ?? null,
    publisher: input.metadata.publisher ?? null,
    year: input.metadata.year ?? null,
    summary: null,
  };

  switch (strategy) {
    case "flat":
      return { ...base, seriesKey: `name:${normaliseSeriesName(anySeries)}`, name: anySeries, folderPath: null };
    case "publisher_hierarchy": {
      const [publisher, seriesFolder] = relativeFolder.split(sep);
      if (!seriesFolder) return seriesFor("flat", input);
      const folderKey = [publisher, seriesFolder].join("/");
      return {
        ...base,
        publisher: input.metadata.publisher ?? publisher ?? null,
        seriesKey: `folder:${folderKey}`,
        name: seriesFolder,
        folderPath: `${input.libraryRoot}${sep}${publisher}${sep}${seriesFolder}`,
      };
    }
    case "calibre":
      if (embeddedSeries) return { ...base, seriesKey: `name:${normaliseSeriesName(embeddedSeries)}`, name: embeddedSeries, folderPath: null };
      return {
        ...base,
        seriesKey: `folder:${relativeFolder}`,
        name: basename(folder).replace(CALIBRE_ID, ""),
        folderPath: folder,
      };
    case "series_volume":
      if (relativeFolder === "") return seriesFor("flat", input);
      return { ...base, seriesKey: `folder:${relativeFolder}`, name: basename(folder), folderPath: folder };
  }
}

/**
 * What a series is called and published by when its books do not settle it: for a series of
 * a folder, the folder's name (calibre's without its id) and, under publisher_hierarchy, the
 * publisher folder's; for a series of a name (flat, a calibre series, books at the root), the
 * name its first book was grouped under: its series name, else its file's title, else its file name.
 */
export function fallbackSeriesFields(
  strategy: SeriesStrategy,
  series: { folderPath: string | null },
  firstBook: { series: string | undefined; title: string },
): { name: string; publisher: string | null } {
  if (!series.folderPath) return { name: firstBook.series ?? firstBook.title, publisher: null };
  const folder = basename(series.folderPath);
  return {
    name: strategy === "calibre" ? folder.replace(CALIBRE_ID, "") : folder,
    publisher: strategy === "publisher_hierarchy" ? basename(dirname(series.folderPath)) : null,
  };
}

/** Series names that group together: the same once Unicode forms, case and spacing are ignored. */
export function normaliseSeriesName(name: string): string {
  return name.normalize("NFKC").toLocaleLowerCase("en").replace(/\s+/g, " ").trim();
}

function stem(path: string): string {
  return basename(path).replace(/\.[^.]+$/, "");
}
