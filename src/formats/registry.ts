/**
 * The only way the rest of the server reaches book files: detects a file's format from its
 * content, runs the matching plugin under a time limit and the AnalysisLimits, and turns
 * every failure into a typed BookAnalysisError.
 */
import {
  type AnalysisLimits,
  type AnalysisResult,
  BookAnalysisError,
  type BookResource,
  type FileStamp,
  type FormatPlugin,
  type PageImage,
  type PageInfo,
  type PageLocation,
  type PluginContext,
  type Publication,
  type ReadPageOptions,
  type ThumbnailOptions,
} from "./contract.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failure } from "./errors.ts";
import { ExtractionCache } from "./extraction-cache.ts";
import { extensionOf } from "./images.ts";
import { resolveLimits } from "./limits.ts";
import { servedMediaType } from "./resource-types.ts";
import { makeThumbnail } from "./resize.ts";

/** Bytes given to every plugin's `detect`. */
export const DETECTION_HEAD_BYTES = 4096;
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface RegistryOptions {
  limits?: Partial<AnalysisLimits>;
  /** Time limit for one call on one book (analyze, readPage, thumbnail, readResource). */
  timeoutMs?: number;
  /** Where plugins keep extracted books (PluginContext.extractionCache); default: a folder in the system temp dir. */
  extractionCache?: { dir: string; maxBytes: number };
}

const DEFAULT_EXTRACTION_CACHE_BYTES = 256 * 1024 * 1024;

export interface CallOptions {
  /** Cancels the call (a cancelled scan). */
  signal?: AbortSignal;
  /** Overrides the registry's time limit for this call. */
  timeoutMs?: number;
  /** The plugin id already known for the book (BookDto fileFormat, stored at scan time): skips detection. */
  formatId?: string;
  /** The file's size and modification time when the caller has just stat'ed it: given to the plugin (PluginContext.file). */
  file?: FileStamp;
}

/**
 * The outcome of analysing one book. `result` is null when the book could not be read at all;
 * `errors` lists every problem, fatal or not (empty when all went well). A book without pages
 * keeps its `result` (with its metadata) and gets a `zero_pages` error, so the scanner can
 * store both.
 */
export interface BookAnalysis {
  /** Id of the plugin that read the book, null when no plugin recognised it. */
  format: string | null;
  result: AnalysisResult | null;
  errors: BookAnalysisError[];
}

/**
 * A `page_extraction` error for each page the analysis found empty (its entry's size, which
 * the plugin read anyway: no page is read for this). Such a page is served as an image that
 * says so (PageService).
 */
function emptyPageErrors(pages: readonly PageInfo[]): BookAnalysisError[] {
  return pages.flatMap((page, index) =>
    page.size === 0 ? [failure("page_extraction", "corrupt", `Page ${index + 1} (${page.fileName}) is empty (0 bytes)`, { pageNumber: index + 1 })] : [],
  );
}

export class FormatRegistry {
  readonly limits: AnalysisLimits;
  private readonly timeoutMs: number;
  private readonly extractionCache: ExtractionCache;
  private readonly byId = new Map<string, FormatPlugin>();

  constructor(
    readonly plugins: readonly FormatPlugin[],
    options: RegistryOptions = {},
  ) {
    for (const plugin of plugins) {
      if (this.byId.has(plugin.id)) throw new Error(`Two format plugins claim the id "${plugin.id}" (${this.byId.get(plugin.id)?.name} and ${plugin.name})`);
      this.byId.set(plugin.id, plugin);
    }
    this.limits = resolveLimits(options.limits);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const cache = options.extractionCache ?? { dir: join(tmpdir(), `longbox-extraction-cache-${process.pid}`), maxBytes: DEFAULT_EXTRACTION_CACHE_BYTES };
    this.extractionCache = new ExtractionCache(cache.dir, cache.maxBytes);
  }

  plugin(id: string): FormatPlugin | undefined {
    return this.byId.get(id);
  }

  /** Extensions (lower case, no dot) the folder walker should pick up. */
  extensions(): string[] {
    return [...new Set(this.plugins.flatMap((plugin) => plugin.extensions))];
  }

  /**
   * The plugin for a file, judged by content: the highest `detect` score wins, the extension
   * breaks ties, then registration order. Throws `format_detection` when nobody claims it.
   */
  async detect(path: string): Promise<FormatPlugin> {
    const head = await Bun.file(path).slice(0, DETECTION_HEAD_BYTES).bytes();
    const extension = extensionOf(path);
    let best: { plugin: FormatPlugin; score: number; extensionMatches: boolean } | undefined;
    for (const plugin of this.plugins) {
      const score = safeDetect(plugin, head, path);
      if (score <= 0) continue;
      const extensionMatches = plugin.extensions.includes(extension);
      if (!best || score > best.score || (score === best.score && extensionMatches && !best.extensionMatches)) {
        best = { plugin, score, extensionMatches };
      }
    }
    if (!best) {
      const known = this.plugins.map((plugin) => plugin.id).join(", ");
      throw failure(
        "format_detection",
        "unknown_format",
        head.length === 0
          ? "The file is empty"
          : `The file's content is not a format the server reads (${known}); its extension ".${extension}" is not taken into account`,
      );
    }
    return best.plugin;
  }

  /** Analyses a book. Never throws for a problem with the book: see BookAnalysis. */
  async analyze(path: string, options: CallOptions = {}): Promise<BookAnalysis> {
    let plugin: FormatPlugin;
    try {
      plugin = await this.pluginFor(path, options);
    } catch (error) {
      return { format: null, result: null, errors: [toBookAnalysisError(error)] };
    }
    try {
      const result = await this.guarded(options, (ctx) => plugin.analyze(path, ctx));
      if (!result || !Array.isArray(result.pages)) {
        throw failure("other", "unexpected", `The "${plugin.id}" plugin returned an invalid analysis result`);
      }
      const errors = [...(result.problems ?? []), ...emptyPageErrors(result.pages)];
      if (result.pages.length === 0) {
        errors.push(failure("zero_pages", "not_found", "The book has no pages (no page image or document was found in it)"));
      } else if (result.pages.every((page) => page.size === 0)) {
        // Not one page to read: the book is not readable, like one without pages.
        errors.push(failure("zero_pages", "not_found", "The book has no readable page: every page is empty (0 bytes)"));
        return { format: plugin.id, result: { ...result, pages: [], coverPage: null }, errors };
      }
      return { format: plugin.id, result, errors };
    } catch (error) {
      return { format: plugin.id, result: null, errors: [toBookAnalysisError(error)] };
    }
  }

  /** Starts the format's runtime ahead of a read (FormatPlugin.warm); a failure shows on the read itself, so it is ignored here. */
  warm(formatId: string): void {
    this.plugin(formatId)
      ?.warm?.()
      .catch(() => undefined);
  }

  /** One page, 1-based. Throws BookAnalysisError (`not_found` reason outside 1..pageCount). */
  async readPage(path: string, pageNumber: number, options: CallOptions & ReadPageOptions = {}): Promise<PageImage> {
    const plugin = await this.pluginFor(path, options);
    const readOptions = options.maxWidth ? { maxWidth: options.maxWidth } : undefined;
    return this.guarded(options, (ctx) => plugin.readPage(path, pageNumber, ctx, readOptions));
  }

  /** Where page `pageNumber` lies unmodified in the file, or null (the plugin cannot say, or it does not). */
  async locatePage(path: string, pageNumber: number, options: CallOptions = {}): Promise<PageLocation | null> {
    const plugin = await this.pluginFor(path, options);
    const locatePage = plugin.locatePage?.bind(plugin);
    if (!locatePage) return null;
    return this.guarded(options, (ctx) => locatePage(path, pageNumber, ctx));
  }

  /**
   * A thumbnail of the book. Plugins may make their own; otherwise the cover page (from the
   * analysis, default 1) goes through sharp under the pixel limit.
   */
  async thumbnail(path: string, options: ThumbnailOptions & CallOptions & { coverPage?: number }): Promise<Uint8Array> {
    const plugin = await this.pluginFor(path, options);
    const thumbnailOptions: ThumbnailOptions = { height: options.height, format: options.format };
    return this.guarded(options, async (ctx) => {
      if (plugin.thumbnail) return plugin.thumbnail(path, ctx, thumbnailOptions);
      const cover = await plugin.readPage(path, options.coverPage ?? 1, ctx);
      return makeThumbnail(cover.bytes, thumbnailOptions, ctx.limits.maxPixels);
    });
  }

  /**
   * A resource inside the book by its path (EPUB web reader). Throws `not_found` for anything
   * outside the book. Its media type comes from the server's table (src/formats/resource-types.ts),
   * the plugin's (book-declared) type being only a key into it.
   */
  async readResource(path: string, resourcePath: string, options: CallOptions = {}): Promise<BookResource> {
    const plugin = await this.pluginFor(path, options);
    const readResource = plugin.readResource?.bind(plugin);
    if (!readResource) throw failure("other", "not_found", `Books read by the "${plugin.id}" plugin have no resources`);
    const resource = await this.guarded(options, (ctx) => readResource(path, resourcePath, ctx));
    return { ...resource, mediaType: servedMediaType(resource.mediaType, resourcePath) };
  }

  /** The book as a web publication (EPUB web reader). Throws `not_found` when its format has none. */
  async publication(path: string, options: CallOptions = {}): Promise<Publication> {
    const plugin = await this.pluginFor(path, options);
    const publication = plugin.publication?.bind(plugin);
    if (!publication) throw failure("other", "not_found", `Books read by the "${plugin.id}" plugin cannot be read as a web publication`);
    return this.guarded(options, (ctx) => publication(path, ctx));
  }

  /**
   * Whether books of this format are read as web publications (EPUB): their reading position is
   * a progression and a locator, not only a page number.
   */
  readsAsPublication(formatId: string): boolean {
    return this.byId.get(formatId)?.publication !== undefined;
  }

  /** Whether the plugin with this id renders its pages (they are worth caching). */
  rendersPages(formatId: string): boolean {
    return this.byId.get(formatId)?.rendersPages === true;
  }

  private async pluginFor(path: string, options: CallOptions): Promise<FormatPlugin> {
    if (options.formatId === undefined) return this.detect(path);
    const plugin = this.byId.get(options.formatId);
    if (!plugin) throw failure("format_detection", "unknown_format", `No plugin with the id "${options.formatId}" is installed`);
    return plugin;
  }

  /**
   * Runs plugin work with the limits and an AbortSignal that fires on the time limit or the
   * caller's cancellation. The call returns as soon as the signal fires, even if the plugin
   * ignores it; errors are converted to BookAnalysisError.
   */
  private async guarded<T>(options: CallOptions, work: (ctx: PluginContext) => Promise<T>): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort(failure("other", "timeout", `Reading the book took longer than ${formatSeconds(timeoutMs)} and was stopped`, { timeoutMs }));
    }, timeoutMs);
    const cancel = (): void => controller.abort(failure("other", "aborted", "Reading the book was cancelled"));
    if (options.signal?.aborted) cancel();
    options.signal?.addEventListener("abort", cancel, { once: true });
    const stopped = new Promise<never>((_, reject) => {
      const rejectWithReason = (): void => reject(controller.signal.reason);
      if (controller.signal.aborted) rejectWithReason();
      else controller.signal.addEventListener("abort", rejectWithReason, { once: true });
    });
    try {
      const running = Promise.resolve().then(() => work({ limits: this.limits, signal: controller.signal, extractionCache: this.extractionCache, file: options.file }));
      running.catch(() => undefined); // may still fail after the time limit won the race
      return await Promise.race([running, stopped]);
    } catch (error) {
      throw toBookAnalysisError(error);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", cancel);
    }
  }
}

/** A plugin whose detect throws does not claim the file (and cannot break detection for others). */
function safeDetect(plugin: FormatPlugin, head: Uint8Array, path: string): number {
  try {
    const score = plugin.detect(head, path);
    return Number.isFinite(score) ? score : 0;
  } catch {
    return 0;
  }
}

/**
 * BookAnalysisErrors pass through; anything else is a failure nobody anticipated. Errors that
 * come from reading malformed bytes (out-of-range reads, syntax errors) are `parser` errors.
 */
export function toBookAnalysisError(error: unknown): BookAnalysisError {
  if (error instanceof BookAnalysisError) return error;
  if (error instanceof RangeError || error instanceof SyntaxError) {
    return failure("parser", "corrupt", `The file is damaged and could not be parsed: ${error.message}`);
  }
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
  if (code === "ENOENT") return failure("other", "unexpected", "The file does not exist (it may have been moved or deleted)");
  if (code === "EACCES" || code === "EPERM") return failure("other", "unexpected", "The server is not allowed to read the file");
  const message = error instanceof Error ? error.message : String(error);
  return failure("other", "unexpected", `Unexpected error while reading the book: ${message}`, code ? { code } : {});
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
