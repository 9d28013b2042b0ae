/**
 * The comic reader's first screen, drawn by a classic script that the reader's page runs right
 * after the reader's markup, well before the reader's module runs (a module waits for the
 * document's parsing, the deferred scripts and its own loading: 40-100 ms on a cached visit). It
 * puts the first screen's pages on the stage as the reader (./comic.js) would, with the same
 * layout decisions (./layout.js), so that they are asked for and drawn at once. The reader then
 * takes these images over as they are: they are the pages at exactly the addresses it would ask
 * for, and nothing is fetched twice. Bundled on its own (src/http/web/reader-assets-macro.ts).
 */
import { firstPages, openingState, pageAddress } from "./layout.js";
import { createPageImage, whenFirstDrawn } from "./page-image.js";
import { serverSettings } from "./settings.js";
import { rememberScreen } from "./screen.js";

const root = document.getElementById("comic-reader");
const viewport = root.querySelector('[data-role="viewport"]');
const stage = root.querySelector('[data-role="stage"]');
const state = openingState(root.dataset, serverSettings(root));
const sizes = JSON.parse(root.dataset.sizes);
const pages = firstPages(state, sizes, viewport);
// The styles that size the pages depend on the mode and fit, as the reader sets them.
root.dataset.mode = state.mode;
root.dataset.fit = state.fit;
stage.style.setProperty("--per-screen", String(pages.length));
const images = pages.map((page) => createPageImage(page, pageAddress(root.dataset.pagesBase, state, page, sizes[page - 1], pages.length, viewport, devicePixelRatio), sizes[page - 1]));
for (const image of images) image.fetchPriority = "high";
stage.replaceChildren(...images);
if (images[0]) whenFirstDrawn(images[0]);
// The next reader page names its first screen's pages in its Link header, for a screen like this one.
rememberScreen(viewport);
