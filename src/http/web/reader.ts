/**
 * GET /read/:id: the readers. Comic archives and PDFs open in the comic reader
 * (templates/reader/comic.eta, static/js/reader/comic.js), EPUBs in the EPUB reader
 * (templates/reader/epub.eta, static/js/reader/epub.js); each page loads only its own reader.
 * `?page=N` opens page N (for an EPUB: spine item N); without it the reader resumes from the
 * caller's progress, or starts over when the book was finished. Both readers get the caller's
 * settings for the book's series (src/library/reader-settings.ts) in the page itself.
 * `?readlist=<id>` (the Read button of a read list's page) makes the comic reader's "Read next"
 * the read list's next book the caller may see, carrying the read list on to it.
 */
import { Elysia, t } from "elysia";
import type { BookView, PageRecord } from "../../db";
import type { Publication } from "../../formats/contract";
import type { Caller } from "../../library/books";
import { DomainError } from "../../errors";
import type { Services } from "../../services";
import { IdParams, IntegerQuery, integerQuery, Uuid, type IntegerRange } from "../params";
import { redirectTo, type WebPageGuard } from "./page-guard";
import { firstScreenOf, readerScreenOf } from "./reader-screen";
import type { PageSize } from "../../../static/js/reader/layout.js";
import { COMIC_FIRST_SCREEN_SCRIPT, READER_MODULES, READER_SCRIPTS } from "./assets";
import { NONCE_PAGE_HEADERS, noncePolicyAllowing, page, scriptNonce, urlWith, type PageData, type Viewer } from "./views";

/**
 * The readers' policy: the site's, with scripts allowed only by this response's nonce
 * (noncePolicyAllowing), plus what foliate-js needs to show a book. It copies each of the
 * book's files into a blob: URL and shows the documents in iframes of the site's origin (with
 * `allow-scripts`, which WebKit needs for events), injecting its layout styles into them. Those
 * documents inherit this policy, which no markup of a book can satisfy, whether or not
 * static/js/reader/epub.js could add its own per-document policy (an SVG document has no head).
 * The comic reader (CBZ, CBR, PDF pages) shows only images, but gets the same script rule: a
 * reader page is where a book's content is on screen.
 */
function readerPolicy(nonce: string, format: "comic" | "epub"): string {
  if (format === "comic") return noncePolicyAllowing(nonce, {});
  return noncePolicyAllowing(nonce, {
    "style-src": ["'unsafe-inline'", "blob:"],
    "connect-src": ["blob:"],
    "font-src": ["blob:", "data:"],
    "frame-src": ["blob:"],
    "media-src": ["'self'", "blob:"],
  });
}

/**
 * A reader page: its fresh nonce in the policy and on its scripts, and never cached.
 * `imagePreloads`: addresses the browser is to fetch at once, named in a `Link` header, which
 * it acts on as it commits the page, with the page's first requests.
 */
function readerPage(template: "reader/comic" | "reader/epub", data: PageData, imagePreloads: readonly string[] = []): Response {
  const nonce = scriptNonce();
  const format = template === "reader/epub" ? "epub" : "comic";
  const link: Record<string, string> = imagePreloads.length > 0 ? { link: imagePreloads.map((url) => `<${url}>; rel=preload; as=image; fetchpriority=high`).join(", ") } : {};
  return page(template, { ...data, nonce }, 200, { ...NONCE_PAGE_HEADERS, ...link, "content-security-policy": readerPolicy(nonce, format) });
}

/** Where an EPUB declares obfuscated fonts; the reader asks for it only when the book has it. */
const ENCRYPTION_FILE = "META-INF/encryption.xml";

/** The largest package file the EPUB reader's page carries (packageTexts). */
const CARRIED_FILE_BYTES = 512 * 1024;

/** `?page`: a page, or an EPUB's spine item; past the end the comic reader opens the last page. */
const START_PAGE: IntegerRange = { minimum: 1, maximum: 1_000_000 };

export function readerPages(services: Services, guard: WebPageGuard) {
  return new Elysia({ name: "web-reader-pages" }).use(guard).get(
    "/read/:id",
    async ({ viewer, params, query, request }) => {
      // A reader is a page of its own (its head, its policy, no htmx): a link that htmx boosted
      // there would swap the reader into the old page. htmx is told to load it instead.
      if (request.headers.get("hx-request") === "true") {
        const { pathname, search } = new URL(request.url);
        return redirectTo(request, pathname + search);
      }
      const requestedPage = integerQuery(query.page, "page", START_PAGE);
      const book = await services.books.get(viewer.user, params.id);
      // An unknown read list, or one not shown to the caller, is a 404 like any other.
      const readList = query.readlist ? await services.readingLists.get(viewer.user, "readlist", query.readlist) : null;
      services.pages.prepareReading(book);
      const comic = book.fileFormat !== "epub";
      const [pages, next, settings, publication] = await Promise.all([
        services.pages.list(viewer.user, book.id),
        comic ? nextBook(services, viewer.user, book, query.readlist) : null,
        services.readerSettings.effective(viewer.user, book.seriesId),
        comic ? null : publicationOrNull(services, viewer.user, book.id),
      ]);
      const readerSettings = JSON.stringify(settings);
      if (!comic) {
        const { texts, hasEncryption } = await packageTexts(services, viewer.user, book.id, publication);
        return epubReader(viewer, book, pages, requestedPage, { hasEncryption, readerSettings, publication, packageFiles: JSON.stringify(texts) });
      }
      const startPage = Math.min(requestedPage ?? resumePage(book), Math.max(book.pageCount, 1));
      const sizes = pageSizes(pages);
      const pagesBase = pagesBaseOf(book);
      const screen = readerScreenOf(request);
      const firstScreen = screen ? firstScreenOf({ pageCount: book.pageCount, startPage, readingDirection: book.readingDirection, pagesBase, sizes, settings }, screen) : [];
      services.pages.startReading(viewer.user, book.id, firstScreen);
      return readerPage("reader/comic", {
        title: book.title,
        viewer,
        fullscreen: true,
        book,
        next: next ? { id: next.id, title: next.title, url: urlWith(`/read/${next.id}`, { readlist: query.readlist }) } : null,
        readList: readList ? { id: readList.id, name: readList.name } : null,
        startPage,
        sizes: JSON.stringify(sizes),
        pagesBase,
        readerSettings,
        isAdmin: viewer.user.role === "admin",
        shortcuts: "comic",
        readerScript: READER_SCRIPTS.comic,
        readerModules: READER_MODULES.comic,
        firstScreenScript: COMIC_FIRST_SCREEN_SCRIPT,
      }, firstScreen.map((entry) => entry.url));
    },
    {
      // Full screen: no menu, so no libraries read for one.
      page: { access: "user", menu: false },
      params: IdParams,
      query: t.Object({
        page: IntegerQuery(START_PAGE, "the page to open (an EPUB's spine item)"),
        readlist: t.Optional(Uuid),
      }),
      detail: { hide: true },
    },
  );
}

/**
 * The book to read next: the read list's next one the caller may see when the reader was opened
 * from a read list (none after its last, or when the book is not in it), else the series' next.
 */
async function nextBook(services: Services, user: Caller, book: BookView, readListId: string | undefined): Promise<BookView | null> {
  if (!readListId) return (await services.series.nextBook(user, book)) ?? null;
  try {
    return await services.readingLists.adjacentBook(user, readListId, book.id, "next");
  } catch (error) {
    if (error instanceof DomainError && error.kind === "NotFound") return null;
    throw error;
  }
}

/** Where a comic reopens: the saved page, unless the book was finished (then from the start). */
function resumePage(book: BookView): number {
  return book.progress && !book.progress.completed ? book.progress.page : 1;
}

function pageSizes(pages: readonly PageRecord[]): PageSize[] {
  return pages.map((entry): PageSize => (entry.width && entry.height ? [entry.width, entry.height] : null));
}

function pagesBaseOf(book: BookView): string {
  return `/api/v1/books/${book.id}/pages/`;
}

/**
 * What the reader will ask for first when the book's page's main button (Read, or Continue at
 * the saved page) opens it, for that page to have the browser prefetch it while the person
 * looks (issue 31): a comic's first screen (a PDF page takes 150-300 ms to render the first
 * time, which then passes before the click instead of after it), an EPUB's preloads (the
 * document it opens at and what that links to). Prefetched responses stay in the browser's
 * cache for the reader, whose requests for them are answered 304 (their ETags), by whichever
 * server process gets them. None for a book without pages, a browser that asks to save data, a
 * comic when the reader has not measured this browser's screen yet (the same cookie as the
 * reader's Link header), or an EPUB resumed at a saved position (foliate-js finds where that is)
 * or that cannot be described (the reader says what is wrong).
 */
export async function readerPrefetch(services: Services, user: Caller, book: BookView, request: Request): Promise<string[]> {
  if (book.pageCount < 1 || request.headers.get("save-data") === "on") return [];
  if (book.fileFormat === "epub") {
    if (book.progress && !book.progress.completed) return [];
    const publication = await publicationOrNull(services, user, book.id);
    return publication ? openingPreloads(book.id, publication, { resumes: false, startSection: undefined }) : [];
  }
  const screen = readerScreenOf(request);
  if (!screen) return [];
  const [pages, settings] = await Promise.all([services.pages.list(user, book.id), services.readerSettings.effective(user, book.seriesId)]);
  const startPage = Math.min(resumePage(book), book.pageCount);
  const firstScreen = firstScreenOf({ pageCount: book.pageCount, startPage, readingDirection: book.readingDirection, pagesBase: pagesBaseOf(book), sizes: pageSizes(pages), settings }, screen);
  return firstScreen.map((entry) => entry.url);
}

/** The EPUB described; null when it cannot be: it then only goes without preloads, and the reader says what is wrong. */
function publicationOrNull(services: Services, user: Caller, bookId: string): Promise<Publication | null> {
  return services.publications.publication(user, bookId).then(
    (described) => described.publication,
    () => null,
  );
}

/**
 * An EPUB reopens at its saved locator (or, written by another client, its progression), unless
 * `?page` names another spine item than the saved one.
 */
function epubReader(
  viewer: Viewer,
  book: BookView,
  pages: PageRecord[],
  requestedSection: number | undefined,
  { publication, ...extra }: { hasEncryption: boolean; readerSettings: string; publication: Publication | null; packageFiles: string },
) {
  const saved = book.progress && !book.progress.completed ? book.progress : null;
  const resume = saved && (requestedSection === undefined || requestedSection === saved.page) ? saved : null;
  const cfi = resume?.locator?.locations?.cfi;
  const startSection = resume ? undefined : requestedSection;
  return readerPage("reader/epub", {
    title: book.title,
    viewer,
    fullscreen: true,
    book,
    startCfi: typeof cfi === "string" ? cfi : "",
    startProgression: resume && typeof cfi !== "string" && resume.progression !== null ? String(resume.progression) : "",
    startSection: String(startSection ?? ""),
    sizes: JSON.stringify(pages.map((entry) => [entry.fileName, entry.size ?? 0])),
    ...extra,
    bookPreloads: publication ? openingPreloads(book.id, publication, { resumes: resume !== null, startSection }) : [],
    shortcuts: "epub",
    readerScript: READER_SCRIPTS.epub,
    readerModules: READER_MODULES.epub,
  });
}

/**
 * The text of the files foliate-js reads before anything else, one after another, each parsed
 * before it knows the next: the container, the encryption file when the book has one, the
 * package and the navigation document. The page carries them (static/js/reader/epub.js reads
 * them from it instead of asking the server), so that opening the book waits for no chain of
 * requests. Read from the book opened for this page (the open-archive LRU), the caller's access
 * checked once; a file the book does not have is not carried, nor one larger than
 * CARRIED_FILE_BYTES, which the reader asks for (a page is not made megabytes long by a book's
 * oversized package). Also whether the book has an encryption file, which the reader reads
 * (to tell obfuscated fonts) only when it has one.
 */
async function packageTexts(services: Services, user: Caller, bookId: string, publication: Publication | null): Promise<{ texts: Record<string, string>; hasEncryption: boolean }> {
  const files = new Set([...(publication?.opening?.package ?? []), ENCRYPTION_FILE]);
  const read = await services.publications.resources(user, bookId, [...files]);
  const texts: Record<string, string> = {};
  for (const [path, resource] of read) {
    if (resource && resource.bytes.byteLength <= CARRIED_FILE_BYTES) texts[path] = new TextDecoder().decode(resource.bytes);
  }
  return { texts, hasEncryption: Boolean(read.get(ENCRYPTION_FILE)) };
}

/**
 * The addresses of the book's files the EPUB reader asks for first, once it has read the
 * package (which the page carries: packageTexts), which the page has the browser fetch at once
 * (`<link rel=preload as=fetch>`): the document the reader opens at with what it links to.
 * Written as static/js/reader/epub.js writes them (each path segment encoded), so that its
 * requests are answered by these.
 */
function openingPreloads(bookId: string, publication: Publication, start: { resumes: boolean; startSection: number | undefined }): string[] {
  const opening = publication.opening;
  if (!opening) return [];
  // A resumed position (a CFI or a progression) is found by foliate-js; a requested section is the reading order's.
  const section = start.startSection === undefined ? undefined : publication.readingOrder[start.startSection - 1]?.href.split("#")[0];
  const text = start.resumes ? [] : section !== undefined ? [section] : opening.textStart;
  return text.map((path) => `/api/v1/books/${bookId}/resource/${path.split("/").map(encodeURIComponent).join("/")}`);
}
