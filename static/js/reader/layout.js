/** Pure layout decisions of the comic reader: which pages share a screen, and at what width to ask for them. */

/** A page whose width exceeds its height is a spread already and is shown alone. */
const isWide = (size) => !!size && size[0] > size[1];

/**
 * Groups pages (1-based numbers) into screens. With `double`, pages go in pairs, except the
 * cover, wide pages, and a page whose partner would be wide or missing, which stand alone.
 * `sizes[n - 1]` is page n's [width, height] or null when unknown (treated as portrait).
 */
export function screensOf(sizes, double) {
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
 */
export function requestWidth(cssWidth, pixelRatio) {
  const needed = Math.ceil(cssWidth * pixelRatio);
  return WIDTH_STEPS.find((step) => step >= needed) ?? null;
}

/** The page's image address, scaled when `width` is given. */
export function pageUrl(base, page, width) {
  return width ? `${base}${page}?width=${width}` : `${base}${page}`;
}

/** Maps the library's reading directions to reader modes. */
export const MODE_OF_DIRECTION = { ltr: "ltr", rtl: "rtl", ttb: "vertical", webtoon: "webtoon" };
export const MODES = ["ltr", "rtl", "vertical", "webtoon"];
export const FITS = ["screen", "width", "height", "original"];
export const SPREADS = ["auto", "single", "double"];
