/**
 * What Komga clients decode, as strict schemas: every field a client requires is required here
 * with the type it needs (nullable only where the client's type is nullable). Unknown keys are
 * allowed, as every client ignores them. Sources: /work/shared/notes/komga-koreader-protocols.md
 * part A (Mihon's dto/Dto.kt and PageWrapperDto.kt, the tracker's KomgaModels.kt, komga-client).
 */
import { Type as T, type TSchema } from "@sinclair/typebox";
import Ajv from "ajv";
import { expect } from "bun:test";

const ajv = new Ajv({ allErrors: true, strict: false });

/** `yyyy-MM-dd'T'HH:mm:ss'Z'`, Komga's instant format (kotlin Instant needs the Z). */
export const Instant = T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$" });
export const LocalDate = T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
const Strings = T.Array(T.String());
const Author = T.Object({ name: T.String(), role: T.String() });
const Link = T.Object({ label: T.String(), url: T.String() });
const Enum = (...values: string[]) => T.Union(values.map((value) => T.Literal(value)));

const locks = (...names: string[]) => Object.fromEntries(names.map((name) => [`${name}Lock`, T.Boolean()]));

export const SpringPage = (item: TSchema) =>
  T.Object({
    content: T.Array(item),
    pageable: T.Object({
      offset: T.Integer(),
      pageNumber: T.Integer(),
      pageSize: T.Integer(),
      paged: T.Boolean(),
      unpaged: T.Boolean(),
      sort: T.Object({ empty: T.Boolean(), sorted: T.Boolean(), unsorted: T.Boolean() }),
    }),
    totalElements: T.Integer(),
    totalPages: T.Integer(),
    last: T.Boolean(),
    first: T.Boolean(),
    number: T.Integer(),
    size: T.Integer(),
    numberOfElements: T.Integer(),
    empty: T.Boolean(),
    sort: T.Object({ empty: T.Boolean(), sorted: T.Boolean(), unsorted: T.Boolean() }),
  });

/** komga-client KomgaSeries (Komelia): every key present, nulls included; covers Mihon's SeriesDto. */
export const KomgaSeries = T.Object({
  id: T.String(),
  libraryId: T.String(),
  name: T.String(),
  url: T.String(),
  booksCount: T.Integer(),
  booksReadCount: T.Integer(),
  booksUnreadCount: T.Integer(),
  booksInProgressCount: T.Integer(),
  deleted: T.Boolean(),
  oneshot: T.Boolean(),
  created: Instant,
  lastModified: Instant,
  fileLastModified: Instant,
  metadata: T.Object({
    status: Enum("ENDED", "ONGOING", "ABANDONED", "HIATUS"),
    title: T.String(),
    titleSort: T.String(),
    alternateTitles: T.Array(T.Object({ label: T.String(), title: T.String() })),
    summary: T.String(),
    readingDirection: Enum("", "LEFT_TO_RIGHT", "RIGHT_TO_LEFT", "VERTICAL", "WEBTOON"),
    publisher: T.String(),
    ageRating: Nullable(T.Integer()),
    language: T.String(),
    genres: Strings,
    tags: Strings,
    totalBookCount: Nullable(T.Integer()),
    sharingLabels: Strings,
    links: T.Array(Link),
    ...locks("status", "title", "titleSort", "alternateTitles", "summary", "readingDirection", "publisher", "ageRating", "language", "genres", "tags", "totalBookCount", "sharingLabels", "links"),
    created: Instant,
    lastModified: Instant,
  }),
  booksMetadata: T.Object({
    authors: T.Array(Author),
    tags: Strings,
    releaseDate: Nullable(LocalDate),
    summary: T.String(),
    summaryNumber: T.String(),
    created: Instant,
    lastModified: Instant,
  }),
});

/** komga-client KomgaBook (Komelia); covers Mihon's BookDto (number as float there). */
export const KomgaBook = T.Object({
  id: T.String(),
  seriesId: T.String(),
  seriesTitle: T.String(),
  libraryId: T.String(),
  name: T.String(),
  url: T.String(),
  number: T.Integer(),
  created: Instant,
  lastModified: Instant,
  fileLastModified: Instant,
  sizeBytes: T.Integer(),
  size: T.String(),
  media: T.Object({
    status: Enum("READY", "UNKNOWN", "ERROR", "UNSUPPORTED", "OUTDATED"),
    mediaType: T.String(),
    pagesCount: T.Integer(),
    comment: T.String(),
    epubDivinaCompatible: T.Boolean(),
    epubIsKepub: T.Boolean(),
    mediaProfile: Enum("DIVINA", "PDF", "EPUB"),
  }),
  metadata: T.Object({
    title: T.String(),
    summary: T.String(),
    number: T.String(),
    numberSort: T.Number(),
    releaseDate: Nullable(LocalDate),
    authors: T.Array(Author),
    tags: Strings,
    isbn: T.String(),
    links: T.Array(Link),
    ...locks("title", "summary", "number", "numberSort", "releaseDate", "authors", "tags", "isbn", "links"),
    created: Instant,
    lastModified: Instant,
  }),
  readProgress: Nullable(
    T.Object({
      page: T.Integer(),
      completed: T.Boolean(),
      readDate: Instant,
      deviceId: T.String(),
      deviceName: T.String(),
      created: Instant,
      lastModified: Instant,
    }),
  ),
  deleted: T.Boolean(),
  fileHash: T.String(),
  oneshot: T.Boolean(),
});

/** komga-client KomgaBookPage; Mihon's PageDto needs number, fileName, mediaType. */
export const KomgaBookPage = T.Object({
  number: T.Integer(),
  fileName: T.String(),
  mediaType: T.String(),
  width: Nullable(T.Integer()),
  height: Nullable(T.Integer()),
  sizeBytes: Nullable(T.Integer()),
  size: T.String(),
});

export const KomgaUser = T.Object({
  id: T.String(),
  email: T.String(),
  roles: T.Array(Enum("ADMIN", "FILE_DOWNLOAD", "PAGE_STREAMING", "KOBO_SYNC", "KOREADER_SYNC")),
  sharedAllLibraries: T.Boolean(),
  sharedLibrariesIds: Strings,
  labelsAllow: Strings,
  labelsExclude: Strings,
  ageRestriction: Nullable(T.Object({ age: T.Integer(), restriction: Enum("ALLOW_ONLY", "EXCLUDE") })),
});

const flags = (...names: string[]) => Object.fromEntries(names.map((name) => [name, T.Boolean()]));

export const KomgaLibrary = T.Object({
  id: T.String(),
  name: T.String(),
  root: T.String(),
  ...flags(
    "importComicInfoBook",
    "importComicInfoSeries",
    "importComicInfoCollection",
    "importComicInfoReadList",
    "importComicInfoSeriesAppendVolume",
    "importEpubBook",
    "importEpubSeries",
    "importMylarSeries",
    "importLocalArtwork",
    "importBarcodeIsbn",
    "scanForceModifiedTime",
    "scanOnStartup",
    "scanCbx",
    "scanPdf",
    "scanEpub",
    "repairExtensions",
    "convertToCbz",
    "emptyTrashAfterScan",
    "hashFiles",
    "hashPages",
    "hashKoreader",
    "analyzeDimensions",
    "unavailable",
  ),
  scanInterval: Enum("DISABLED", "HOURLY", "EVERY_6H", "EVERY_12H", "DAILY", "WEEKLY"),
  scanDirectoryExclusions: Strings,
  seriesCover: Enum("FIRST", "FIRST_UNREAD_OR_FIRST", "FIRST_UNREAD_OR_LAST", "LAST"),
  oneshotsDirectory: Nullable(T.String()),
});

/** The Mihon tracker's v2 tachiyomi progress. */
export const TachiyomiProgressV2 = T.Object({
  booksCount: T.Integer(),
  booksReadCount: T.Integer(),
  booksUnreadCount: T.Integer(),
  booksInProgressCount: T.Integer(),
  lastReadContinuousNumberSort: T.Number(),
  maxNumberSort: T.Number(),
});

export const CollectionPage = SpringPage(
  T.Object({ id: T.String(), name: T.String(), ordered: T.Boolean(), seriesIds: Strings, createdDate: Instant, lastModifiedDate: Instant, filtered: T.Boolean() }),
);

/**
 * komga-client's Readium types (Snd-R/komga-client src/commonMain/kotlin/snd/komga/client/book/
 * Readium.kt:13-35): R2Locator's href and type have defaults but are not nullable (a null
 * fails); its other fields are nullable.
 */
export const R2Locator = T.Object({
  href: T.Optional(T.String()),
  type: T.Optional(T.String()),
  title: T.Optional(Nullable(T.String())),
  locations: T.Optional(
    Nullable(
      T.Object({
        fragment: T.Optional(Nullable(Strings)),
        position: T.Optional(Nullable(T.Integer())),
        progression: T.Optional(Nullable(T.Number())),
        totalProgression: T.Optional(Nullable(T.Number())),
      }),
    ),
  ),
  text: T.Optional(Nullable(T.Object({ after: T.Optional(Nullable(T.String())), before: T.Optional(Nullable(T.String())), highlight: T.Optional(Nullable(T.String())) }))),
  koboSpan: T.Optional(Nullable(T.String())),
});
export const R2Positions = T.Object({ total: T.Integer(), positions: T.Array(R2Locator) });
export const R2Progression = T.Object({ modified: Instant, device: T.Object({ id: T.String(), name: T.String() }), locator: R2Locator });
export const StringList = Strings;

/** Fails the test with ajv's errors when `value` does not match. */
export function decode<S extends TSchema>(schema: S, value: unknown): any {
  const validate = ajv.compile(schema);
  if (!validate(value)) expect({ errors: validate.errors, value }).toBeUndefined();
  return value;
}
