/**
 * The comic reader's first screen, named in its page's `Link` header: from the screen the
 * reader last laid pages out on in this browser (the `longbox-reader-screen` cookie that
 * static/js/reader/screen.js keeps), the addresses of the pages the first screen will show, as
 * static/js/reader/first-screen.js will compute them (both use static/js/reader/layout.js).
 * Preloaded from the header, they are asked for with the page's first requests, 10-40 ms
 * before the first screen's script runs behind the reader's style sheets and markup, and the
 * server starts reading them once it has answered the page. Without the cookie (a first read
 * in this browser) or with an unusable one, nothing is named.
 */
import type { ReaderSettings } from "../../db";
import { cookieOf } from "../cookies";
import { firstPages, openingState, pageUrl, pageWidth, type PageSize } from "../../../static/js/reader/layout.js";

const SCREEN_COOKIE = "longbox-reader-screen";

export interface ReaderScreen {
  width: number;
  height: number;
  pixelRatio: number;
}

/** `width_height_ratio` in CSS pixels; anything else, or sizes no screen has, is no screen. */
function parseReaderScreen(value: string | null): ReaderScreen | null {
  const match = value?.match(/^(\d{1,5})_(\d{1,5})_(\d{1,2}(?:\.\d{1,6})?)$/);
  if (!match) return null;
  const [width, height, pixelRatio] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (width < 1 || height < 1 || width > 20_000 || height > 20_000 || pixelRatio < 0.25 || pixelRatio > 10) return null;
  return { width, height, pixelRatio };
}

/** The screen the request's browser last read on, if it said. */
export function readerScreenOf(request: Request): ReaderScreen | null {
  return parseReaderScreen(cookieOf(request, SCREEN_COOKIE));
}

export interface FirstScreenBook {
  pageCount: number;
  startPage: number;
  readingDirection: string | null;
  pagesBase: string;
  sizes: PageSize[];
  settings: { series: ReaderSettings; effective: ReaderSettings };
}

/** A page of the first screen, and the width the reader will ask for it at (null: its original size). */
export interface FirstScreenPage {
  number: number;
  width: number | null;
  url: string;
}

/** The first screen's pages on `screen`, in the order the reader puts them on its stage. */
export function firstScreenOf(book: FirstScreenBook, screen: ReaderScreen): FirstScreenPage[] {
  const viewport = { clientWidth: screen.width, clientHeight: screen.height };
  const { series, effective } = book.settings;
  const state = openingState(
    { pageCount: book.pageCount, startPage: book.startPage, direction: book.readingDirection ?? "ltr" },
    { series: (field) => series[field as keyof ReaderSettings], value: (field) => effective[field as keyof ReaderSettings] },
  );
  const pages = firstPages(state, book.sizes, viewport);
  return pages.map((number) => {
    const width = pageWidth(state, book.sizes[number - 1] ?? null, pages.length, viewport, screen.pixelRatio);
    return { number, width, url: pageUrl(book.pagesBase, number, width) };
  });
}
