/** A page of the comic reader as an `<img>`, and the mark of the first page drawn: shared by the reader (./comic.js) and the first page's script (./first-screen.js). */

/** The image of page `page` (1-based) at `url`; `size`: its [width, height] when known, so the page keeps its place while it loads. */
export function createPageImage(page, url, size, loading = "eager") {
  const image = document.createElement("img");
  image.alt = `Page ${page}`;
  image.dataset.page = String(page);
  image.decoding = "async";
  image.loading = loading;
  if (size) [image.width, image.height] = size;
  image.src = url;
  return image;
}

const FIRST_PAGE = "reader:first-page";

/** Marks the moment the first page is on screen (the benchmark and the end-to-end tests read it), once. */
export function whenFirstDrawn(image) {
  if (performance.getEntriesByName(FIRST_PAGE).length > 0) return;
  image
    .decode()
    .catch(() => undefined)
    .then(() =>
      requestAnimationFrame(() => {
        if (performance.getEntriesByName(FIRST_PAGE).length === 0) performance.mark(FIRST_PAGE);
      }),
    );
}
