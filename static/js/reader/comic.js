/**
 * The comic reader (CBZ, CBR, and PDF through its rendered pages). Modes: paged left-to-right,
 * paged right-to-left, vertical (pages one after another) and webtoon (a strip without gaps).
 * The page (templates/reader/comic.eta) describes the book in data attributes; this module
 * draws pages, turns them (keys, tap zones, swipes, slider, go-to), preloads the next ones,
 * saves progress and offers the next book at the end.
 */
import Panzoom from "@panzoom/panzoom";
import { watchTapsAndSwipes, zoneOf } from "./gestures.js";
import { isPaged, MODE_OF_DIRECTION, openingState, pageAddress, pageUrl, screenOf as screenIndexOf, screensOf, wantsDouble as doubleFor } from "./layout.js";
import { createPageImage, whenFirstDrawn } from "./page-image.js";
import { csrfHeaders, progressSaver, toggleFullscreen, typingInto } from "./progress.js";
import { serverSettings } from "./settings.js";

const root = document.getElementById("comic-reader");
const part = (role) => root.querySelector(`[data-role="${role}"]`);
const viewport = part("viewport");
const stage = part("stage");
const counter = part("counter");
const slider = part("slider");
const endPanel = part("end");
const data = root.dataset;
const pageCount = Number(data.pageCount);
/** [width, height] per page (index 0 is page 1), null where unknown. */
const sizes = JSON.parse(data.sizes);
const saver = progressSaver(data.progressUrl);

const clamp = (page) => Math.min(Math.max(1, Math.round(page) || 1), pageCount);
const settings = serverSettings(root);
const state = openingState(data, settings);
/** The page last sent to the server (or found there): opening a book does not count as reading it. */
let savedPage = state.page;
let screens = [];
let panzoom = null;
let observer = null;
/** Images of the pages about to be shown, kept referenced so their downloads finish and stay cached. */
let preloaded = [];

const paged = () => isPaged(state.mode);
const zoomed = () => !!panzoom && panzoom.getScale() > 1.01;

const wantsDouble = () => doubleFor(state.spread, viewport);

/** The address of a page shown `perScreen` to a screen: at the width it takes there (./layout.js). */
const urlOf = (page, perScreen) => pageAddress(data.pagesBase, state, page, sizes[page - 1], perScreen, viewport, devicePixelRatio);

/**
 * The first screen's pages, put on the stage by the page's first-screen script (./first-screen.js)
 * before this module ran, by address: the first render takes them over instead of making them again.
 */
const drawnEarly = new Map([...stage.querySelectorAll("img")].map((image) => [image.getAttribute("src"), image]));

function pageImage(page, perScreen, loading = "eager") {
  const url = urlOf(page, perScreen);
  const early = drawnEarly.get(url);
  drawnEarly.delete(url);
  return early ?? createPageImage(page, url, sizes[page - 1], loading);
}

function showPage(page) {
  state.page = page;
  const shown = paged() ? screens[screenOf(page)] : [page];
  const last = shown[shown.length - 1];
  counter.textContent = `${shown.length > 1 ? `${shown[0]}–${last}` : page} / ${pageCount}`;
  slider.value = String(page);
  // A spread that holds the last page completes the book; otherwise its first page is the place.
  const place = last === pageCount ? last : page;
  if (place !== savedPage) {
    savedPage = place;
    saver.save({ page: place });
  }
}

const screenOf = (page) => screenIndexOf(screens, page);

/** Settles once the image has loaded or failed. */
const settled = (image) =>
  image.complete
    ? Promise.resolve()
    : new Promise((resolve) => {
        image.addEventListener("load", resolve, { once: true });
        image.addEventListener("error", resolve, { once: true });
      });

function showScreen(index) {
  const pages = screens[index];
  hideEnd();
  stage.style.setProperty("--per-screen", String(pages.length));
  const shown = pages.map((page) => pageImage(page, pages.length));
  for (const image of shown) image.fetchPriority = "high";
  stage.replaceChildren(...shown);
  whenFirstDrawn(shown[0]);
  panzoom?.reset({ animate: false });
  viewport.scrollTo(0, 0);
  showPage(pages[0]);
  // The next screens are fetched once this one has arrived, not beside it: the server (a PDF
  // page rendered, a solid archive unpacked) and the connection serve the page on screen first.
  preloaded = [];
  Promise.all(shown.map(settled)).then(() => {
    if (stage.firstElementChild !== shown[0]) return; // turned away meanwhile: that screen preloads its own
    preloaded = screens.slice(index + 1, index + 3).flatMap((next) => next.map((page) => pageImage(page, next.length)));
  });
}

function renderPaged() {
  screens = screensOf(sizes, wantsDouble());
  showScreen(screenOf(state.page));
  panzoom = Panzoom(stage, {
    minScale: 1,
    maxScale: 6,
    panOnlyWhenZoomed: true,
    cursor: "default",
    // Pages taller than the screen still scroll by touch while not zoomed.
    touchAction: state.fit === "screen" || state.fit === "height" ? "none" : "pan-y",
  });
}

function renderStrip() {
  screens = [];
  const near = (page) => Math.abs(page - state.page) <= 2;
  const images = sizes.map((_, index) => pageImage(index + 1, 1, near(index + 1) ? "eager" : "lazy"));
  stage.style.setProperty("--per-screen", "1");
  stage.replaceChildren(...images);
  whenFirstDrawn(images[state.page - 1]);
  images[state.page - 1].scrollIntoView({ block: "start" });
  // The page crossing the middle of the screen is the current one.
  observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) if (entry.isIntersecting) showPage(Number(entry.target.dataset.page));
    },
    { root: viewport, rootMargin: "-50% 0px -50% 0px" },
  );
  for (const image of images) observer.observe(image);
  showPage(state.page);
}

function render() {
  observer?.disconnect();
  observer = null;
  // destroy() only unbinds the zoom's listeners: the `overflow: hidden; touch-action: none` it put
  // on the viewport would stay and stop the strip modes from scrolling.
  panzoom?.resetStyle();
  panzoom?.destroy();
  panzoom = null;
  stage.removeAttribute("style");
  root.dataset.mode = state.mode;
  root.dataset.fit = state.fit;
  slider.dir = state.mode === "rtl" ? "rtl" : "ltr";
  if (paged()) renderPaged();
  else renderStrip();
}

function goTo(page) {
  const target = clamp(page);
  if (paged()) showScreen(screenOf(target));
  else {
    hideEnd();
    stage.children[target - 1]?.scrollIntoView({ block: "start" });
    showPage(target);
  }
}

/** One step in reading order: +1 forward, -1 back. Past the last page comes the end panel. */
function step(direction) {
  if (!paged()) {
    if (direction > 0 && state.page === pageCount) showEnd();
    else goTo(state.page + direction);
    return;
  }
  const index = screenOf(state.page) + direction;
  if (index >= screens.length) showEnd();
  else if (index >= 0) showScreen(index);
}

function showEnd() {
  if (savedPage !== pageCount) showPage(pageCount);
  endPanel.hidden = false;
  if (!paged()) endPanel.scrollIntoView({ block: "end" });
  endPanel.querySelector("a")?.focus();
}

function hideEnd() {
  endPanel.hidden = true;
}

function setChromeHidden(hidden) {
  root.classList.toggle("chrome-hidden", hidden);
}

// Keyboard: arrows follow the reading direction; space and page keys go forward and back.
addEventListener("keydown", (event) => {
  if (typingInto(event) || event.altKey || event.ctrlKey || event.metaKey) return;
  const rtl = state.mode === "rtl";
  switch (event.key) {
    case "ArrowRight":
      step(rtl ? -1 : 1);
      break;
    case "ArrowLeft":
      step(rtl ? 1 : -1);
      break;
    case "PageDown":
      step(1);
      break;
    case "PageUp":
      step(-1);
      break;
    case " ":
      if (!paged()) return; // the strip scrolls natively
      step(event.shiftKey ? -1 : 1);
      break;
    case "Home":
      goTo(1);
      break;
    case "End":
      goTo(pageCount);
      break;
    case "Escape":
      if (!endPanel.hidden) hideEnd();
      else setChromeHidden(!root.classList.contains("chrome-hidden"));
      break;
    default:
      return;
  }
  event.preventDefault();
});

// Taps and clicks on the side thirds turn pages, in the middle they show or hide the bars;
// swipes turn pages. Captured, because the zoom library stops the pointer events it handles.
watchTapsAndSwipes(viewport, {
  capture: true,
  onTap(point) {
    const zone = zoneOf(point.x, viewport.getBoundingClientRect());
    if (!paged() || zone === "middle") setChromeHidden(!root.classList.contains("chrome-hidden"));
    // The left third goes back left-to-right and forward right-to-left.
    else if (!zoomed()) step((zone === "left") === (state.mode === "rtl") ? 1 : -1);
  },
  onSwipe(dx) {
    // Swiping left brings the page on the right: the next one left-to-right, the previous one right-to-left.
    if (paged() && !zoomed()) step((dx < 0) === (state.mode === "rtl") ? -1 : 1);
  },
});
viewport.addEventListener("dblclick", (event) => {
  if (!panzoom || zoneOf(event.clientX, viewport.getBoundingClientRect()) !== "middle") return;
  if (zoomed()) panzoom.reset();
  else panzoom.zoomToPoint(2.5, event);
});
viewport.addEventListener(
  "wheel",
  (event) => {
    if (panzoom && event.ctrlKey) panzoom.zoomWithWheel(event);
  },
  { passive: false },
);
// Zoomed in, a page asked for at the screen's width would blur: fetch it at full size.
stage.addEventListener("panzoomzoom", () => {
  if (!zoomed()) return;
  for (const image of stage.querySelectorAll("img")) {
    const full = pageUrl(data.pagesBase, Number(image.dataset.page), null);
    if (!image.src.endsWith(full)) image.src = full;
  }
});

part("prev").addEventListener("click", () => step(-1));
part("next").addEventListener("click", () => step(1));
slider.max = String(pageCount);
slider.addEventListener("input", () => {
  counter.textContent = `${slider.value} / ${pageCount}`;
});
slider.addEventListener("change", () => goTo(Number(slider.value)));
part("goto").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = event.currentTarget.elements.namedItem("page");
  goTo(Number(input.value));
  input.value = "";
  viewport.focus({ preventScroll: true });
});

/**
 * Settings: each select names the state field it changes; the choice is kept on the server.
 * A mode (a direction, for paged modes) is the series' own; fit and spread are the user's.
 */
for (const select of root.querySelectorAll("select[data-setting]")) {
  const setting = select.dataset.setting;
  select.value = state[setting];
  select.addEventListener("change", () => {
    state[setting] = select.value;
    settings.save(setting, select.value, { forSeries: setting === "mode" });
    render();
    // Back to the pages, so that arrow keys turn them instead of changing the choice.
    viewport.focus({ preventScroll: true });
  });
}

// An admin can make the mode the series' reading direction (its metadata, for every reader).
const saveDirection = part("save-direction");
saveDirection?.addEventListener("click", async () => {
  const readingDirection = Object.keys(MODE_OF_DIRECTION).find((direction) => MODE_OF_DIRECTION[direction] === state.mode);
  const response = await fetch(saveDirection.dataset.seriesUrl, {
    method: "PATCH",
    credentials: "same-origin",
    headers: { "content-type": "application/json", ...csrfHeaders() },
    body: JSON.stringify({ readingDirection }),
  }).catch(() => null);
  part("direction-saved").textContent = window.pageMessage(response?.ok ? "directionSaved" : "directionNotSaved");
});

// An admin can make the page on screen the book's cover (the book's edit page does the same).
const pageAsCover = part("page-as-cover");
pageAsCover?.addEventListener("click", async () => {
  const response = await fetch(pageAsCover.dataset.coverUrl, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/x-www-form-urlencoded", ...csrfHeaders() },
    body: new URLSearchParams({ page: String(state.page) }),
  }).catch(() => null);
  part("cover-saved").textContent = window.pageMessage(response?.ok ? "coverSaved" : "coverNotSaved", { page: state.page });
});

// Closing the settings gives the keys back to the pages (Space and arrows scroll or turn them).
part("settings").addEventListener("toggle", (event) => {
  if (!event.currentTarget.open) viewport.focus({ preventScroll: true });
});

part("fullscreen").addEventListener("click", async () => {
  const entering = !document.fullscreenElement;
  await toggleFullscreen();
  setChromeHidden(entering);
});
document.addEventListener("fullscreenchange", () => {
  if (!document.fullscreenElement) setChromeHidden(false);
});

// Re-pair pages when the screen turns between portrait and landscape.
let resizeTimer = 0;
addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (paged() && screens.some((pages) => pages.length > 1) !== wantsDouble()) render();
  }, 150);
});

render();
drawnEarly.clear();
root.dataset.ready = "true";
viewport.focus({ preventScroll: true });
