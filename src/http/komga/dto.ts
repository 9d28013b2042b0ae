/**
 * Longbox's records in Komga's DTO shapes. Every key Komga writes is present, with `null`
 * written out (Komelia's client has no defaults); instants are `yyyy-MM-dd'T'HH:mm:ss'Z'`
 * (UTC, no fraction), dates `yyyy-MM-dd`; enum values are Komga's. docs/komga-api.md says how
 * each field maps.
 */
import type { BookView, PageRecord, ReadingDirection, SeriesView, UserRecord } from "../../db";
import type { ReleaseDate, SeriesBooksMetadata } from "../../library/catalogue-metadata";
import type { LibraryDto } from "../../library/libraries";
import { withoutServerPath } from "../api/book-dto";

export function instant(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function localDate(date: ReleaseDate): string {
  const pad = (value: number, width: number) => String(value).padStart(width, "0");
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`;
}

const READING_DIRECTIONS: Record<ReadingDirection, string> = {
  ltr: "LEFT_TO_RIGHT",
  rtl: "RIGHT_TO_LEFT",
  ttb: "VERTICAL",
  webtoon: "WEBTOON",
};

/** Komga's size text, e.g. "1.5 MiB". */
function binarySize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : Math.round(value * 100) / 100} ${units[unit]}`;
}

export type MediaStatus = "READY" | "UNKNOWN" | "ERROR" | "UNSUPPORTED" | "OUTDATED";
export type MediaProfile = "DIVINA" | "PDF" | "EPUB";

/**
 * Longbox's analysis state as Komga's media status (the same rule as the repository's
 * AnalysisState): pages found -> READY; none, with a recorded error -> ERROR; else UNKNOWN.
 */
export function mediaStatusOf(book: Pick<BookView, "pageCount" | "analysisError">): MediaStatus {
  if (book.pageCount > 0) return "READY";
  return book.analysisError === null ? "UNKNOWN" : "ERROR";
}

export function mediaProfileOf(fileFormat: string): MediaProfile {
  return fileFormat === "epub" ? "EPUB" : fileFormat === "pdf" ? "PDF" : "DIVINA";
}

export function toKomgaUser(user: UserRecord) {
  return {
    id: user.id,
    email: user.username,
    roles: [...(user.role === "admin" ? ["ADMIN"] : []), "FILE_DOWNLOAD", "PAGE_STREAMING"],
    sharedAllLibraries: true,
    sharedLibrariesIds: [],
    labelsAllow: [],
    labelsExclude: [],
    ageRestriction: null,
  };
}

export function toKomgaLibrary(library: LibraryDto) {
  return {
    id: library.id,
    name: library.name,
    // Komga clients need a string; only admins see server paths (docs/api.md), others get "".
    root: library.path ?? "",
    importComicInfoBook: true,
    importComicInfoSeries: true,
    importComicInfoCollection: false,
    importComicInfoReadList: false,
    importComicInfoSeriesAppendVolume: false,
    importEpubBook: true,
    importEpubSeries: true,
    importMylarSeries: false,
    importLocalArtwork: false,
    importBarcodeIsbn: false,
    scanForceModifiedTime: false,
    scanInterval: "DISABLED",
    scanOnStartup: library.scanningConfig.scanOnStart,
    scanCbx: true,
    scanPdf: true,
    scanEpub: true,
    scanDirectoryExclusions: [],
    repairExtensions: false,
    convertToCbz: false,
    emptyTrashAfterScan: false,
    seriesCover: "FIRST",
    hashFiles: true,
    hashPages: false,
    hashKoreader: false,
    analyzeDimensions: true,
    oneshotsDirectory: null,
    unavailable: false,
  };
}

export function toKomgaSeries(series: SeriesView, books: SeriesBooksMetadata) {
  const locked = (field: string) => series.lockedFields.includes(field);
  const created = instant(series.createdAt);
  const lastModified = instant(series.updatedAt);
  const booksUnreadCount = series.bookCount - series.booksReadCount - series.booksInProgressCount;
  return {
    id: series.id,
    libraryId: series.libraryId,
    name: series.name,
    url: "",
    created,
    lastModified,
    fileLastModified: lastModified,
    booksCount: series.bookCount,
    booksReadCount: series.booksReadCount,
    booksUnreadCount,
    booksInProgressCount: series.booksInProgressCount,
    metadata: {
      // Komga has no "unknown": a series whose status nobody set is ongoing, as Komga's default.
      status: (series.status ?? "ongoing").toUpperCase(),
      statusLock: locked("status"),
      title: series.name,
      titleLock: locked("name"),
      titleSort: series.nameSort,
      titleSortLock: locked("nameSort"),
      alternateTitles: [],
      alternateTitlesLock: false,
      summary: series.summary ?? "",
      summaryLock: locked("summary"),
      readingDirection: READING_DIRECTIONS[series.readingDirection],
      readingDirectionLock: locked("readingDirection"),
      publisher: series.publisher ?? "",
      publisherLock: locked("publisher"),
      ageRating: series.ageRating,
      ageRatingLock: locked("ageRating"),
      language: series.language ?? "",
      languageLock: locked("language"),
      genres: series.genres,
      genresLock: locked("genres"),
      tags: series.tags,
      tagsLock: locked("tags"),
      totalBookCount: null,
      totalBookCountLock: false,
      sharingLabels: [],
      sharingLabelsLock: false,
      links: series.links.map((link) => ({ label: link.label, url: link.url })),
      linksLock: locked("links"),
      created,
      lastModified,
    },
    booksMetadata: {
      authors: series.authors.map((author) => ({ name: author.name, role: author.role })),
      tags: books.tags,
      releaseDate: books.releaseDate ? localDate(books.releaseDate) : null,
      summary: books.summary ?? "",
      summaryNumber: books.summaryNumber === null ? "" : String(books.summaryNumber),
      created: instant(books.created ?? series.createdAt),
      lastModified: instant(books.lastModified ?? series.updatedAt),
    },
    deleted: false,
    oneshot: false,
  };
}

export type KomgaSeriesDto = ReturnType<typeof toKomgaSeries>;

/**
 * Whether a book can hold reading progress: one without pages (unreadable) never can, so the
 * Mihon tracker's counts leave it out rather than wait for it to be read.
 */
export const holdsProgress = (book: Pick<BookView, "pageCount">): boolean => book.pageCount > 0;

/**
 * Komga's numberSort is never null: a book without a number has its 1-based position in its
 * series (`position`, from seriesPositions); 0 only for a book outside its series' order (deleted).
 */
export function numberSortOf(book: Pick<BookView, "numberSort" | "number">, position: number | undefined): number {
  return book.numberSort ?? book.number ?? position ?? 0;
}

/** The number text of a book ("3", "3.5"; its position when it has no number), "" when it has neither. */
function numberText(book: BookView, position: number | undefined): string {
  const value = book.numberSort ?? book.number ?? position;
  return value === undefined ? "" : String(value);
}

/**
 * `divinaCompatible`: an EPUB whose every page is an image (Mihon drops the other EPUBs);
 * `position`: the book's place in its series, its number when it has none (seriesPositions).
 */
export function toKomgaBook(book: BookView, divinaCompatible: boolean, showServerPaths: boolean, position: number | undefined) {
  const locked = (field: string) => book.lockedFields.includes(field);
  const created = instant(book.createdAt);
  const lastModified = instant(book.updatedAt);
  const profile = mediaProfileOf(book.fileFormat);
  const releaseDate = book.year === null ? null : localDate({ year: book.year, month: book.metadata.month ?? 1, day: book.metadata.day ?? 1 });
  return {
    id: book.id,
    seriesId: book.seriesId,
    seriesTitle: book.seriesName,
    libraryId: book.libraryId,
    name: book.title,
    url: showServerPaths ? book.filePath : "",
    number: Math.trunc(numberSortOf(book, position)),
    created,
    lastModified,
    fileLastModified: instant(new Date(book.fileModifiedAt)),
    sizeBytes: book.fileSize,
    size: binarySize(book.fileSize),
    media: {
      status: mediaStatusOf(book),
      mediaType: book.mediaType,
      pagesCount: book.pageCount,
      comment: (showServerPaths ? book.analysisError : withoutServerPath(book.analysisError, book.filePath)) ?? "",
      epubDivinaCompatible: profile === "EPUB" && divinaCompatible,
      epubIsKepub: false,
      mediaProfile: profile,
    },
    metadata: {
      title: book.title,
      titleLock: locked("title"),
      summary: book.summary ?? "",
      summaryLock: locked("summary"),
      number: numberText(book, position),
      numberLock: locked("number"),
      numberSort: numberSortOf(book, position),
      numberSortLock: locked("number"),
      releaseDate,
      releaseDateLock: locked("year"),
      authors: (book.metadata.authors ?? []).map((author) => ({ name: author.name, role: author.role })),
      authorsLock: locked("authors"),
      tags: book.metadata.tags ?? [],
      tagsLock: false,
      isbn: book.metadata.identifiers?.isbn ?? "",
      isbnLock: false,
      links: [],
      linksLock: false,
      created,
      lastModified,
    },
    readProgress: book.progress
      ? {
          page: book.progress.page,
          completed: book.progress.completed,
          readDate: instant(book.progress.updatedAt),
          created: instant(book.progress.updatedAt),
          lastModified: instant(book.progress.updatedAt),
          deviceId: "",
          deviceName: "",
        }
      : null,
    deleted: book.deleted,
    fileHash: book.fileHash,
    oneshot: false,
  };
}

export function toKomgaPage(page: PageRecord) {
  return {
    number: page.number,
    fileName: page.fileName,
    mediaType: page.mediaType,
    width: page.width,
    height: page.height,
    sizeBytes: page.size,
    size: page.size === null ? "" : binarySize(page.size),
  };
}
