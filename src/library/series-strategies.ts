/**
 * How books group into series, one function per `series_strategy` of a library:
 * - series_volume: every folder holding books is a series (books at the library root group by
 *   their series name instead);
 * - flat: folders are ignored, the series comes from metadata or the file name;
 * - publisher_hierarchy: Publisher/Series/books, the first folder level being the publisher;
 * - calibre: Author/Title (id)/book.epub, series from the OPF (calibre:series), else each title
 *   is its own series.
 * In every strategy a series name from embedded metadata wins over a folder name.
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
      return { ...base, seriesKey: `name:${normalise(anySeries)}`, name: anySeries, folderPath: null };
    case "publisher_hierarchy": {
      const [publisher, seriesFolder] = relativeFolder.split(sep);
      if (!seriesFolder) return seriesFor("flat", input);
      const folderKey = [publisher, seriesFolder].join("/");
      return {
        ...base,
        publisher: input.metadata.publisher ?? publisher ?? null,
        seriesKey: `folder:${folderKey}`,
        name: embeddedSeries ?? seriesFolder,
        folderPath: `${input.libraryRoot}${sep}${publisher}${sep}${seriesFolder}`,
      };
    }
    case "calibre":
      if (embeddedSeries) return { ...base, seriesKey: `name:${normalise(embeddedSeries)}`, name: embeddedSeries, folderPath: null };
      return {
        ...base,
        seriesKey: `folder:${relativeFolder}`,
        name: input.metadata.title ?? basename(folder).replace(/\s*\(\d+\)$/, ""),
        folderPath: folder,
      };
    case "series_volume":
      if (relativeFolder === "") return seriesFor("flat", input);
      return { ...base, seriesKey: `folder:${relativeFolder}`, name: embeddedSeries ?? basename(folder), folderPath: folder };
  }
}

function normalise(name: string): string {
  return name.normalize("NFKC").toLocaleLowerCase("en").replace(/\s+/g, " ").trim();
}

function stem(path: string): string {
  return basename(path).replace(/\.[^.]+$/, "");
}
