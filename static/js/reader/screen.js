/**
 * The screen the comic reader last laid its pages out on, kept in a cookie. With it the server
 * names the first screen's page addresses in the next reader page's `Link` header
 * (src/http/web/reader-screen.ts), so that the browser asks for them as the page's headers
 * arrive, before any of the reader's code has run, and a book's page has the browser prefetch
 * them before Read is clicked (src/http/web/reader.ts, readerPrefetch). A stale value (a resized
 * window, another device's zoom) only costs a page asked for at another width.
 */
const COOKIE = "longbox-reader-screen";
const ONE_YEAR = 365 * 24 * 60 * 60;

/** Keeps `viewport`'s size in CSS pixels and the screen's pixel ratio: `width_height_ratio`. */
export function rememberScreen(viewport) {
  const value = [viewport.clientWidth, viewport.clientHeight, devicePixelRatio].join("_");
  document.cookie = `${COOKIE}=${value}; path=/; max-age=${ONE_YEAR}; samesite=lax`;
  // Kept under /read only before the books' pages read it too: that older cookie would be sent
  // to the reader first, and never updated again.
  document.cookie = `${COOKIE}=; path=/read; max-age=0; samesite=lax`;
}
