// @ts-check
/**
 * Pure layout decisions of the comic reader: its opening state, which pages share a screen, and
 * at what width to ask for them. Shared by the reader (./comic.js), its first screen
 * (./first-screen.js) and the server, which names the first screen's pages in the reader
 * page's `Link` header from the screen the reader last measured (src/http/web/reader-screen.ts): all three
 * must arrive at exactly the same addresses. The types below are the server's too: TypeScript
 * reads them from this file (tsconfig's allowJs) and checks it (the ts-check line above).
 *
 * @typedef {readonly [number, number] | null} PageSize a page's [width, height], or null when unknown
 * @typedef {{ clientWidth: number, clientHeight: number }} ScreenSize the room the reader has, in CSS pixels
 * @typedef {"ltr" | "rtl" | "vertical" | "webtoon"} Mode
 * @typedef {"screen" | "width" | "height" | "original"} Fit
 * @typedef {"auto" | "single" | "double"} Spread
 * @typedef {{ page: number, mode: Mode, fit: Fit, spread: Spread }} OpeningState
 * @typedef {{ series(field: string): unknown, value(field: string): unknown }} OpeningSettings the caller's settings (./settings.js)
 */

/** A page whose width exceeds its height is a spread already and is shown alone. */
const isWide = (/** @type {PageSize | undefined} */ size) => !!size && size[0] > size[1];

/**
 * Groups pages (1-based numbers) into screens. With `double`, pages go in pairs, except the
 * cover, wide pages, and a page whose partner would be wide or missing, which stand alone.
 * `sizes[n - 1]` is page n's [width, height] or null when unknown (treated as portrait).
 * @param {readonly PageSize[]} sizes
 * @param {boolean} double
 * @returns {number[][]}
 */
export function screensOf(sizes, double) {
  /** @type {number[][]} */
  const screens = [];
  for (let page = 1; page <= sizes.length; ) {
    const alone = !double || page === 1 || page === sizes.length || isWide(sizes[page - 1]) || isWide(sizes[page]);
    screens.push(alone ? [page] : [page, page + 1]);
    page += alone ? 1 : 2;
  }
  return screens;
}

/** Widths a page may be requested at: few, so that the browser and server caches are shared. */
const WIDTH_STEPS = [320, 480, 640, 800, 1080, 1280, 1600];

/**
 * The `width` to request a page at, for `cssWidth` CSS pixels of room, or null for the full
 * size (wide screens, where scaling would save little). Never below the room on a dense screen.
 * @param {number} cssWidth
 * @param {number} pixelRatio
 * @returns {number | null}
 */
export function requestWidth(cssWidth, pixelRatio) {
  const needed = Math.ceil(cssWidth * pixelRatio);
  return WIDTH_STEPS.find((step) => step >= needed) ?? null;
}

/**
 * The page's image address, scaled when `width` is given.
 * @param {string} base
 * @param {number} page
 * @param {number | null} width
 */
export function pageUrl(base, page, width) {
  return width ? `${base}${page}?width=${width}` : `${base}${page}`;
}

/**
 * Maps the library's reading directions to reader modes.
 * @type {Readonly<Record<string, Mode>>}
 */
export const MODE_OF_DIRECTION = { ltr: "ltr", rtl: "rtl", ttb: "vertical", webtoon: "webtoon" };
/** @type {readonly Mode[]} */
export const MODES = ["ltr", "rtl", "vertical", "webtoon"];
/** @type {readonly Fit[]} */
export const FITS = ["screen", "width", "height", "original"];
/** @type {readonly Spread[]} */
export const SPREADS = ["auto", "single", "double"];

/**
 * `value` when it is one of `allowed`.
 * @template {string} T
 * @param {unknown} value
 * @param {readonly T[]} allowed
 * @returns {T | undefined}
 */
const chosen = (value, allowed) => (allowed.includes(/** @type {T} */ (value)) ? /** @type {T} */ (value) : undefined);

/**
 * The reader's state as it opens, from the page's data attributes and the caller's settings
 * (./settings.js): the start page, the mode chosen for the series, else the series' direction,
 * else the user's usual mode; the user's fit and spread.
 * @param {{ pageCount?: string | number, startPage?: string | number, direction?: string }} data
 * @param {OpeningSettings} settings
 * @returns {OpeningState}
 */
export function openingState(data, settings) {
  const pageCount = Number(data.pageCount);
  return {
    page: Math.min(Math.max(1, Math.round(Number(data.startPage)) || 1), pageCount),
    mode: chosen(settings.series("mode"), MODES) ?? MODE_OF_DIRECTION[data.direction ?? ""] ?? chosen(settings.value("mode"), MODES) ?? "ltr",
    fit: chosen(settings.value("fit"), FITS) ?? "screen",
    spread: chosen(settings.value("spread"), SPREADS) ?? "auto",
  };
}

/** Paged modes show a screen at a time; the others a strip of pages. */
export const isPaged = (/** @type {Mode} */ mode) => mode === "ltr" || mode === "rtl";

/**
 * Two pages to a screen: as chosen, or on a landscape screen at least 768 px wide.
 * @param {Spread} spread
 * @param {ScreenSize} viewport
 */
export function wantsDouble(spread, viewport) {
  if (spread !== "auto") return spread === "double";
  return viewport.clientWidth > viewport.clientHeight && viewport.clientWidth >= 768;
}

/** The widest a page of a vertical or webtoon strip is shown (reader.css). */
const STRIP_WIDTH = 1000;

/**
 * The CSS width a page takes on `viewport` (its clientWidth and clientHeight), as reader.css
 * lays it out in `state`'s mode and fit: `size` is its [width, height] when known, `perScreen`
 * how many pages share the screen. Paged, "width" fills its share of the screen's width,
 * "height" the screen's height, and "screen" whichever it reaches first; a strip (vertical,
 * webtoon) is the screen's width up to STRIP_WIDTH, or, vertical, the screen's height. Without a
 * size, a page is taken to fill its share of the width.
 * @param {OpeningState} state
 * @param {PageSize | undefined} size
 * @param {number} perScreen
 * @param {ScreenSize} viewport
 * @returns {number}
 */
export function shownWidth(state, size, perScreen, viewport) {
  const share = isPaged(state.mode) ? viewport.clientWidth / perScreen : Math.min(viewport.clientWidth, STRIP_WIDTH);
  const byHeight = size && size[1] > 0 ? (viewport.clientHeight * size[0]) / size[1] : share;
  if (state.fit === "height" && (isPaged(state.mode) || state.mode === "vertical")) return byHeight;
  if (state.fit === "screen" && isPaged(state.mode)) return Math.min(share, byHeight);
  return share;
}

/**
 * The width to ask for a page at (see shownWidth) at `pixelRatio`: what it takes on the screen,
 * or null (the original size) when shown at its original size. Zoomed in, the reader asks for
 * the original size instead (./comic.js).
 * @param {OpeningState} state
 * @param {PageSize | undefined} size
 * @param {number} perScreen
 * @param {ScreenSize} viewport
 * @param {number} pixelRatio
 * @returns {number | null}
 */
export function pageWidth(state, size, perScreen, viewport, pixelRatio) {
  return state.fit === "original" ? null : requestWidth(shownWidth(state, size, perScreen, viewport), pixelRatio);
}

/**
 * The address of page `page` (of `size`) shown `perScreen` to a screen of `viewport` at `pixelRatio` (see pageWidth).
 * @param {string} base
 * @param {OpeningState} state
 * @param {number} page
 * @param {PageSize | undefined} size
 * @param {number} perScreen
 * @param {ScreenSize} viewport
 * @param {number} pixelRatio
 */
export function pageAddress(base, state, page, size, perScreen, viewport, pixelRatio) {
  return pageUrl(base, page, pageWidth(state, size, perScreen, viewport, pixelRatio));
}

/**
 * The index of the screen that shows `page`.
 * @param {readonly (readonly number[])[]} screens
 * @param {number} page
 */
export const screenOf = (screens, page) => Math.max(0, screens.findIndex((pages) => pages.includes(page)));

/**
 * The pages on the first screen: the start page's screen when paged, the start page in a strip; none for a book without pages.
 * @param {OpeningState} state
 * @param {readonly PageSize[]} sizes
 * @param {ScreenSize} viewport
 * @returns {number[]}
 */
export function firstPages(state, sizes, viewport) {
  if (state.page < 1) return [];
  if (!isPaged(state.mode)) return [state.page];
  const screens = screensOf(sizes, wantsDouble(state.spread, viewport));
  return screens[screenOf(screens, state.page)] ?? [];
}
