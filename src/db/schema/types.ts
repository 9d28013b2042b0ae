/** Value types of JSON columns, shared by both schemas. */
import type { Author, ReadingDirection } from "../../formats/contract";

export interface LibraryScanningConfig {
  enabled: boolean;
  cronSchedule: string | null;
  defaultMode: "normal" | "deep";
  scanOnStart: boolean;
  /** Follow file-system events and rescan the folders that changed (absent in older rows: on). */
  watch?: boolean;
  /** Also compare the tree every this many seconds (network mounts without events); null = never. */
  pollSeconds?: number | null;
}

/** A series' publication status, as Komga's. */
export const SERIES_STATUSES = ["ongoing", "ended", "abandoned", "hiatus"] as const;
export type SeriesStatus = (typeof SERIES_STATUSES)[number];

/** A web page about a series: its label and an http(s) address. */
export interface SeriesLink {
  label: string;
  url: string;
}

/** Book metadata beyond the columns that lists filter and sort on. */
export interface StoredBookMetadata {
  /** The book's own series name (from its highest source): it votes for its series' name. */
  series?: string;
  /**
   * The title the file gives (from its highest source), apart from the `title` column an admin
   * may edit: a series named after its first book's title (no series name anywhere) keeps it.
   */
  title?: string;
  readingDirection?: ReadingDirection;
  authors?: Author[];
  publisher?: string;
  language?: string;
  genres?: string[];
  tags?: string[];
  /** The youngest age the book is meant for (see BookMetadata.ageRating). */
  ageRating?: number;
  identifiers?: Record<string, string>;
  month?: number;
  day?: number;
  /** Collections named by the book's metadata (ComicInfo SeriesGroup), made at scan. */
  collections?: string[];
  /** Read lists named by the book's metadata (ComicInfo StoryArc, AlternateSeries), made at scan. */
  readingLists?: { name: string; number?: string }[];
  /** Which source (comicinfo, opf, pdf, filename, folder) gave each merged field. */
  sources?: Record<string, string>;
}

/**
 * A Readium locator (https://readium.org/architecture/models/locators/): where a reader is
 * inside a reflowable publication, as the web reader stores and restores it. Kept as given.
 */
export interface ReadiumLocator {
  href: string;
  type?: string;
  title?: string;
  locations?: Record<string, unknown>;
  text?: Record<string, unknown>;
}

/**
 * How the web readers show books (a user's defaults, or a user's choices for one series). Every
 * field is optional: a missing one falls back to the defaults, then to the reader's own.
 * `mode`'s ltr and rtl are the reading direction of paged comics.
 */
export interface ReaderSettings {
  mode?: "ltr" | "rtl" | "vertical" | "webtoon";
  fit?: "screen" | "width" | "height" | "original";
  spread?: "auto" | "single" | "double";
  epubFont?: "publisher" | "serif" | "sans" | "mono";
  /** Percent of the book's own text size. */
  epubSize?: number;
  epubTheme?: "light" | "sepia" | "dark";
}
