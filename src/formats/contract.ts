/**
 * The format plugin contract. Every book format (the four built-ins in plugins/ and any
 * third-party plugin loaded from `plugins.dir`) implements FormatPlugin. The rest of the
 * server reaches book files only through the registry built from these plugins, never by
 * branching on a file format itself.
 */
import type { ExtractionCache } from "./extraction-cache.ts";

export const BOOK_ERROR_TYPES = [
  "format_detection",
  "parser",
  "metadata",
  "thumbnail",
  "page_extraction",
  "pdf_rendering",
  "zero_pages",
  "other",
] as const;
export type BookErrorType = (typeof BOOK_ERROR_TYPES)[number];

/** A failure a person can act on. Plugins throw this; anything else becomes type `other`. */
export class BookAnalysisError extends Error {
  constructor(
    readonly type: BookErrorType,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "BookAnalysisError";
  }
}

export type ReadingDirection = "ltr" | "rtl" | "ttb" | "webtoon";

export interface Author {
  name: string;
  /** writer, penciller, inker, colorist, letterer, cover, editor, translator, author, ... */
  role: string;
}

/**
 * Metadata found inside a book (ComicInfo.xml, an EPUB's OPF, a PDF's info dictionary/XMP)
 * or derived from its path. Every field is optional: a source states only what it knows.
 * The metadata merge combines several of these by the specification's priority.
 */
export interface BookMetadata {
  title?: string;
  series?: string;
  /** The number as written ("12", "12.5", "001"); parsed by the merge. */
  number?: string;
  volume?: number;
  year?: number;
  month?: number;
  day?: number;
  summary?: string;
  publisher?: string;
  authors?: Author[];
  language?: string;
  genres?: string[];
  tags?: string[];
  /** The youngest age the book is meant for (ComicInfo AgeRating as Komga reads it: "Teen" is 13). */
  ageRating?: number;
  /** isbn, uuid, calibre id, ... keyed by scheme (lower case). */
  identifiers?: Record<string, string>;
  readingDirection?: ReadingDirection;
  /** Series position given by the source when it is not a plain number (EPUB group-position). */
  seriesGroup?: string;
  /** The page count the source claims (ComicInfo PageCount); informative only. */
  declaredPageCount?: number;
  /** Collections the book's series belongs to (ComicInfo SeriesGroup). */
  collections?: string[];
  /** Read lists holding the book, with its place in each (ComicInfo StoryArc/StoryArcNumber, AlternateSeries/AlternateNumber). */
  readingLists?: ReadingListMembership[];
}

export interface ReadingListMembership {
  name: string;
  /** The book's place in the list as written ("3", "3.5"), when given. */
  number?: string;
}

export type MetadataSource = "comicinfo" | "opf" | "pdf" | "filename" | "folder";

export interface PageInfo {
  /** Entry name inside the archive, or a synthetic name such as "page-0001" for PDF. */
  fileName: string;
  mediaType: string;
  /** Pixel dimensions read from the image header (no full decode); null if unknown. */
  width: number | null;
  height: number | null;
  /** Bytes of the page as stored (uncompressed size); null if unknown. */
  size: number | null;
}

export interface AnalysisResult {
  /** The plugin id that read the book (cbz, cbr, epub, pdf, ...). */
  format: string;
  /** The file's media type, for downloads and OPDS acquisition links. */
  mediaType: string;
  pages: PageInfo[];
  /** Embedded metadata, tagged with where it came from; null when the book carries none. */
  metadata: { source: MetadataSource; values: BookMetadata } | null;
  /** 1-based page number of the cover among `pages`, or null when the book has no page. */
  coverPage: number | null;
  /**
   * Problems that did not stop the analysis (a damaged ComicInfo.xml): the book is still
   * usable, but the scanner records them as book errors. Absent when there were none.
   */
  problems?: BookAnalysisError[];
}

export interface AnalysisLimits {
  /** Largest uncompressed size of one archive entry that will be read. */
  maxEntryBytes: number;
  /** Most entries an archive may list. */
  maxEntries: number;
  /** Largest width*height of one image that will be decoded. */
  maxPixels: number;
  /** Largest uncompressed/compressed ratio accepted for one entry (zip bombs). */
  maxCompressionRatio: number;
}

export interface PluginContext {
  limits: AnalysisLimits;
  /** Aborted when the per-book time limit runs out or a scan is cancelled. */
  signal: AbortSignal;
  /**
   * A size-capped folder under the data folder where a plugin may keep a book extracted
   * (solid 7z, compressed tar) so that later pages do not decompress it again.
   */
  extractionCache: ExtractionCache;
  /**
   * The book file's size and modification time when the caller has just stat'ed it (reading
   * a page); absent otherwise. A plugin that keeps opened files (the open-archive LRU) checks
   * them against this instead of a stat of its own.
   */
  file?: FileStamp;
}

/** A file's size and modification time, as a stat gives them (a node:fs Stats is one). */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

export interface PageImage {
  bytes: Uint8Array;
  mediaType: string;
}

/**
 * Where a page's bytes lie verbatim inside the book's file (a stored ZIP entry), so the server
 * can send them straight from the file without reading them into memory.
 */
export interface PageLocation {
  offset: number;
  length: number;
  mediaType: string;
}

export interface ReadPageOptions {
  /** Render or scale so that the image is no wider than this (PDF rendering, resizing). */
  maxWidth?: number;
}

export interface ThumbnailOptions {
  height: number;
  format: "webp" | "jpeg";
}

/** A resource inside a book for the web reader (EPUB chapters, styles, images). */
export interface BookResource {
  bytes: Uint8Array;
  mediaType: string;
}

/** A link to a resource of the book; `href` is its path inside the book (with an optional #fragment). */
export interface PublicationLink {
  href: string;
  type?: string;
  title?: string;
  /** Nested entries of a table of contents. */
  children?: PublicationLink[];
}

/**
 * How a book is read resource by resource in the web reader (EPUB): its reading order, the
 * other resources it needs, and its table of contents. The HTTP layer turns it into a Readium
 * Web Publication Manifest.
 */
export interface Publication {
  metadata: BookMetadata;
  /** fixed: one page per reading-order item (manga, comics); reflowable: flowing text. */
  layout: "fixed" | "reflowable";
  readingOrder: PublicationLink[];
  resources: PublicationLink[];
  toc: PublicationLink[];
  /** Path of the cover image inside the book, when one is declared. */
  cover: string | null;
  /**
   * The book's files a reading system reads to open it, for a client to ask for them all at
   * once instead of one after another (the web reader preloads them). `package`: what it reads
   * before any text (for an EPUB: the container, the package document, the navigation document
   * or NCX); `textStart`: the document where the text starts, where a book is first opened, and
   * the book's files it links to (stylesheets, images).
   */
  opening?: { package: string[]; textStart: string[] };
}

export interface FormatPlugin {
  /** Stable id, also the BookDto `fileFormat` (cbz, cbr, epub, pdf for the built-ins). */
  readonly id: string;
  readonly name: string;
  /** Lower-case extensions without the dot; used to break detection ties and to walk folders. */
  readonly extensions: readonly string[];
  /** Media types of the files this plugin reads; the first is the canonical one. */
  readonly mediaTypes: readonly string[];
  /**
   * True when pages are rendered (PDF) rather than stored as images: each page costs real
   * work, so the server keeps rendered pages in its page cache.
   */
  readonly rendersPages?: boolean;
  /**
   * Prepares what reading any book of this format needs and the plugin otherwise starts on first
   * use (compiling WebAssembly, starting a worker), so that the first page a reader asks for does
   * not wait for it. Reads no book; idempotent; optional.
   */
  warm?(): Promise<void>;
  /**
   * How sure the plugin is that this content is its format, from the file's first bytes
   * (at least 4 KiB when the file is that long) and its path: 0 = not mine, 1 = the container
   * matches (a zip), 2 = this exact format (a zip whose mimetype says EPUB). The registry picks
   * the highest score; the extension only breaks ties.
   */
  detect(head: Uint8Array, path: string): number;
  analyze(path: string, ctx: PluginContext): Promise<AnalysisResult>;
  /** One page, 1-based. Reads only what that page needs. */
  readPage(path: string, pageNumber: number, ctx: PluginContext, options?: ReadPageOptions): Promise<PageImage>;
  /**
   * Optional: where page `pageNumber` lies unmodified in the file, or null when it does not
   * (compressed, encrypted, rendered). Lets the server answer with the file range itself.
   */
  locatePage?(path: string, pageNumber: number, ctx: PluginContext): Promise<PageLocation | null>;
  /** Optional: a thumbnail made without going through readPage (the registry's default does). */
  thumbnail?(path: string, ctx: PluginContext, options: ThumbnailOptions): Promise<Uint8Array>;
  /** Optional: a resource of the book by its path inside the book (EPUB web reader). */
  readResource?(path: string, resourcePath: string, ctx: PluginContext): Promise<BookResource>;
  /** Optional: the book as a web publication (reading order, resources, toc) for the web reader. */
  publication?(path: string, ctx: PluginContext): Promise<Publication>;
}
