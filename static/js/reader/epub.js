/**
 * The EPUB reader: foliate-js renders the book, which it reads file by file from the book's
 * resource endpoint (container, package document, XHTML, CSS, images). Every document it
 * shows is a blob: copy inside an iframe of the site's origin; a blob: document inherits this
 * page's Content-Security-Policy, whose scripts need this response's nonce, so no markup of a
 * book runs a script (foliate-js also never loads the book's script files). Progress is saved as a Readium locator (holding the CFI) with the progression through the book.
 */
import "foliate-js/view.js";
// Imported here, not only when foliate-js opens a reflowable book (most books): it comes with
// the reader's code (preloaded with it) instead of after the book's first files.
import "foliate-js/paginator.js";
import { EPUB } from "foliate-js/epub.js";
import { framePoint, watchTapsAndSwipes, zoneOf } from "./gestures.js";
import { progressSaver, toggleFullscreen, typingInto } from "./progress.js";
import { serverSettings } from "./settings.js";

const root = document.getElementById("epub-reader");
const part = (role) => root.querySelector(`[data-role="${role}"]`);
const data = root.dataset;
const saver = progressSaver(data.progressUrl);
/** Uncompressed sizes of the spine documents (the book's "pages"), for progress by size. */
const sizes = new Map(JSON.parse(data.sizes));

const resourceUrl = (path) => data.resourceBase + path.split("/").map(encodeURIComponent).join("/");

async function fetchResource(path) {
  const response = await fetch(resourceUrl(path), { credentials: "same-origin" });
  return response.ok ? response : null;
}

/**
 * Files foliate-js asks for that are not asked of the server: vendor display hints the reader
 * does not need, and the encryption (font obfuscation) file when the page says the book has none
 * (asking would be answered 404, an error in the console, for nearly every book).
 */
const NOT_ASKED = new Set(["META-INF/com.apple.ibooks.display-options.xml", "META-INF/com.kobobooks.display-options.xml"]);
if (data.hasEncryption !== "true") NOT_ASKED.add("META-INF/encryption.xml");

/**
 * The container, package, navigation and encryption files, which foliate-js reads one after
 * another before anything else: the page carries their text (src/http/web/reader.ts).
 */
const packageFiles = new Map(Object.entries(JSON.parse(data.packageFiles)));

const loader = {
  loadText: async (path) => packageFiles.get(path) ?? (NOT_ASKED.has(path) ? null : ((await fetchResource(path))?.text() ?? null)),
  loadBlob: async (path) => (await fetchResource(path))?.blob() ?? null,
  getSize: (path) => sizes.get(path) ?? 0,
};

/**
 * A second fence, added to every (X)HTML document of the book: nothing but its own styles,
 * images, fonts and media. The barrier itself is the reader page's policy, which every blob:
 * document made here inherits (a script needs the page's nonce; src/http/web/reader.ts), and
 * which holds where this one cannot be added (an SVG document has no head).
 */
const DOCUMENT_POLICY =
  "default-src 'none'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; style-src blob: 'unsafe-inline'; img-src blob: data:; font-src blob: data:; media-src blob:";
const XHTML = "http://www.w3.org/1999/xhtml";
const MARKUP_TYPES = new Set(["application/xhtml+xml", "text/html"]);

/**
 * The document with the policy first in its head (a head is added where there is none), and
 * without `<meta http-equiv=refresh>` (which would take the frame away from the book). Done on
 * the parsed document, never on the text: a comment, CDATA or processing instruction that looks
 * like a head cannot move it. (foliate-js hands over markup it parsed and serialized itself.)
 * A document whose root is not html is left to the inherited policy.
 */
function withPolicy(markup, type) {
  const doc = new DOMParser().parseFromString(markup, type);
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== XHTML || root.localName !== "html") return markup;
  for (const refresh of doc.querySelectorAll("meta[http-equiv]")) {
    if (refresh.getAttribute("http-equiv").trim().toLowerCase() === "refresh") refresh.remove();
  }
  let head = doc.head;
  if (!head) {
    head = doc.createElementNS(XHTML, "head");
    root.prepend(head);
  }
  const meta = doc.createElementNS(XHTML, "meta");
  meta.setAttribute("http-equiv", "Content-Security-Policy");
  meta.setAttribute("content", DOCUMENT_POLICY);
  head.prepend(meta);
  return new XMLSerializer().serializeToString(doc);
}

function lockDownDocuments(event) {
  const { detail } = event;
  const type = String(detail.type);
  if (MARKUP_TYPES.has(type)) {
    detail.data = Promise.resolve(detail.data).then((markup) => (typeof markup === "string" ? withPolicy(markup, type) : markup));
  }
}

/**
 * A fixed-layout book (manga, picture books) may put its images straight in the spine. Shown as
 * they are, Chromium's image document says `width=device-width` in its viewport, which
 * foliate-js cannot size the page by (two 300x150 crops). Each such image is shown instead
 * through a small HTML page whose viewport is the image's own size, so the page is fitted to
 * the screen like any fixed-layout page. Registered before the documents' lock-down, which then
 * gives this page the same policy as every other document.
 */
function imagePagesAsDocuments(book) {
  const types = new Map(book.resources.manifest.map((item) => [item.href, item.mediaType]));
  const imagePages = new Set(
    book.sections.map((section) => section.id).filter((href) => /^image\/(?!svg)/.test(types.get(href) ?? "")),
  );
  return (event) => {
    const { detail } = event;
    if (!imagePages.has(detail.name)) return;
    detail.data = Promise.resolve(detail.data).then((blob) => imagePage(new Blob([blob], { type: types.get(detail.name) })));
    detail.type = "text/html";
  };
}

async function imagePage(blob) {
  const bitmap = await createImageBitmap(blob);
  const { width, height } = bitmap;
  bitmap.close();
  const source = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
  return `<!DOCTYPE html><html><head><meta name="viewport" content="width=${width}, height=${height}"/><style>html, body { margin: 0; } img { display: block; width: ${width}px; height: ${height}px; }</style></head><body><img src="${source}" alt=""/></body></html>`;
}

const THEMES = {
  light: { color: "#1b1b1b", background: "#ffffff", link: "#0b57d0" },
  sepia: { color: "#5b4636", background: "#f4ecd8", link: "#8a4b08" },
  dark: { color: "#e6e6e6", background: "#121212", link: "#8ab4f8" },
};
const FONTS = {
  publisher: null,
  serif: "Georgia, 'Times New Roman', serif",
  sans: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
  mono: "ui-monospace, 'DejaVu Sans Mono', monospace",
};
const SIZE_STEPS = [80, 90, 100, 110, 120, 140, 160, 180, 200];
/** Kept on the server (./settings.js) under these names. */
const SERVER_NAMES = { theme: "epubTheme", font: "epubFont", size: "epubSize" };
const stored = serverSettings(root);
const chosen = (setting, allowed, fallback) => {
  const value = stored.value(SERVER_NAMES[setting]);
  return allowed.includes(value) ? value : fallback;
};
const settings = {
  theme: chosen("theme", Object.keys(THEMES), "light"),
  font: chosen("font", Object.keys(FONTS), "publisher"),
  size: chosen("size", SIZE_STEPS, 100),
};

/** Styles for the book's documents; foliate-js paints its margins in `--theme-bg-color`. */
function bookCss() {
  const theme = THEMES[settings.theme];
  const font = FONTS[settings.font];
  return `
    html { color-scheme: ${settings.theme === "dark" ? "dark" : "light"}; font-size: ${settings.size}% !important; --theme-bg-color: ${theme.background}; }
    html, body { color: ${theme.color} !important; background: ${theme.background} !important; }
    ${font ? `body, p, div, span, li, blockquote, h1, h2, h3, h4, h5, h6 { font-family: ${font} !important; }` : ""}
    a:link, a:visited { color: ${theme.link} !important; }
    p, li, blockquote, dd { line-height: 1.5; }
    pre { white-space: pre-wrap !important; }
    img, svg { max-width: 100%; }`;
}

const view = document.createElement("foliate-view");
// The page's language names it (templates/reader/epub.eta), read before any other script may have run.
view.setAttribute("aria-label", part("viewport").dataset.bookLabel);
part("viewport").append(view);

function applySettings() {
  root.dataset.theme = settings.theme;
  part("font-size").textContent = `${settings.size}%`;
  view.renderer?.setStyles?.(bookCss());
}

/** The table of contents as nested lists of buttons (labels are text, never markup). */
function tocList(items) {
  const list = document.createElement("ol");
  for (const item of items) {
    const entry = document.createElement("li");
    const link = document.createElement("button");
    link.type = "button";
    link.textContent = item.label?.trim() || window.pageMessage("untitled");
    link.addEventListener("click", async () => {
      closeToc();
      await view.goTo(item.href);
    });
    entry.append(link);
    if (item.subitems?.length) entry.append(tocList(item.subitems));
    list.append(entry);
  }
  return list;
}

const tocPanel = part("toc");
const tocButton = part("toc-toggle");
function closeToc() {
  tocPanel.hidden = true;
  tocButton.setAttribute("aria-expanded", "false");
}
tocButton.addEventListener("click", () => {
  tocPanel.hidden = !tocPanel.hidden;
  tocButton.setAttribute("aria-expanded", String(!tocPanel.hidden));
  if (!tocPanel.hidden) tocPanel.querySelector("button")?.focus();
});

/**
 * The book's positions, as Readium counts them: one per 1024 bytes of each reflowable spine
 * document (at least one each), one per page of a fixed-layout book. `starts[i]` is the number
 * of positions before spine item i.
 */
function positionsOf(book, fixed) {
  const counts = book.sections.map((section) => (fixed ? 1 : Math.max(1, Math.ceil((section.size || 0) / 1024))));
  const starts = [];
  let total = 0;
  for (const count of counts) {
    starts.push(total);
    total += count;
  }
  return { counts, starts, total };
}
let positions = { counts: [], starts: [], total: 0 };

/** Spine index of each document shown so far (foliate-js's "load" event tells). */
const sectionOfDocument = new WeakMap();

/**
 * The spine indexes of the fixed-layout pages on screen, in order. Read from the frames rather
 * than from the renderer's index, which names the spread's right page even when a portrait
 * screen shows only its left one.
 */
function shownFixedPages() {
  return view.renderer
    .getContents()
    .filter(({ doc }) => sectionOfDocument.has(doc) && doc.defaultView?.frameElement?.parentElement?.style.display !== "none")
    .map(({ doc }) => sectionOfDocument.get(doc))
    .sort((a, b) => a - b);
}

/** The 1-based position shown, from the spine item and the fraction read through it. */
function positionAt(index, fractionInSection) {
  const count = positions.counts[index] ?? 1;
  return (positions.starts[index] ?? 0) + Math.min(count - 1, Math.floor(fractionInSection * count)) + 1;
}

/**
 * Called by the renderer for every move, after foliate-js's view has worked out the location
 * (`view.lastLocation`: CFI, chapter, progression through the book); the renderer adds the
 * spine item and the fraction through it, which the position needs.
 */
function onRelocate({ detail }) {
  const location = view.lastLocation ?? {};
  const shown = view.isFixedLayout ? shownFixedPages() : [];
  const index = shown[0] ?? (Number(detail.index) || 0);
  const position = positionAt(index, Number(detail.fraction) || 0);
  const last = view.isFixedLayout ? positionAt(shown.at(-1) ?? index, 0) : position;
  // Fixed layout: the pages' place among the pages; reflowable: the progression by size.
  const fraction = view.isFixedLayout ? last / positions.total : Math.min(Math.max(Number(location.fraction) || 0, 0), 1);
  const percent = fraction < 0.1 ? Math.floor(fraction * 1000) / 10 : Math.floor(fraction * 100);
  part("position").textContent = window.pageMessage(last > position ? "readerPages" : "readerPage", { percent, position, last, total: positions.total });
  part("chapter").textContent = location.tocItem?.label?.trim() ?? "";
  root.dataset.location = location.cfi ?? "";
  root.dataset.position = String(position);
  // Opening the book is not reading it: only moves after the first position are saved.
  if (!opened || !location.cfi || location.cfi === data.startCfi) return;
  saver.save({
    page: Math.min(index + 1, Number(data.pageCount)),
    progression: fraction,
    locator: {
      href: view.book.sections[index]?.id ?? "",
      type: "application/xhtml+xml",
      ...(location.tocItem?.label ? { title: String(location.tocItem.label).trim().slice(0, 1024) } : {}),
      locations: { cfi: location.cfi, position, totalProgression: fraction },
    },
  });
}

/**
 * Where to open: the saved CFI; else (a position written by another client, such as KOReader)
 * the saved progression through the whole book; else the spine item asked for; else the start
 * of the text.
 */
async function resume() {
  if (data.startCfi) await view.init({ lastLocation: data.startCfi });
  else if (data.startProgression) await view.goToFraction(Number(data.startProgression));
  else if (data.startSection) await view.goTo(Number(data.startSection) - 1);
  else await view.init({ showTextStart: true });
}

/** Set once the book shows its first position. */
let opened = false;

async function open() {
  const book = await new EPUB(loader).init();
  book.transformTarget?.addEventListener("data", imagePagesAsDocuments(book));
  book.transformTarget?.addEventListener("data", lockDownDocuments);
  await view.open(book);
  positions = positionsOf(book, view.isFixedLayout);
  root.dataset.layout = view.isFixedLayout ? "fixed" : "reflowable";
  view.renderer.addEventListener("relocate", onRelocate);
  // Keys pressed after clicking into the text reach the book's document, not this page.
  view.addEventListener("load", ({ detail }) => {
    if (!detail.doc) return;
    sectionOfDocument.set(detail.doc, detail.index);
    detail.doc.addEventListener("keydown", onKey);
    watchBookDocument(detail.doc);
  });
  applySettings();
  part("toc").append(tocList(book.toc ?? []));
  root.dir = book.dir === "rtl" ? "rtl" : "ltr";
  await resume();
  // The moment the first page is on screen (the benchmark and tests read it, as in the comic reader).
  requestAnimationFrame(() => performance.mark("reader:first-page"));
  opened = true;
  root.dataset.ready = "true";
}

part("prev").addEventListener("click", () => view.prev());
part("next").addEventListener("click", () => view.next());
part("smaller").addEventListener("click", () => changeSize(-1));
part("larger").addEventListener("click", () => changeSize(1));
function changeSize(direction) {
  const index = SIZE_STEPS.indexOf(settings.size) + direction;
  settings.size = SIZE_STEPS[Math.min(Math.max(index, 0), SIZE_STEPS.length - 1)];
  stored.save(SERVER_NAMES.size, settings.size);
  applySettings();
}
for (const select of root.querySelectorAll("select[data-setting]")) {
  const setting = select.dataset.setting;
  select.value = settings[setting];
  select.addEventListener("change", () => {
    settings[setting] = select.value;
    stored.save(SERVER_NAMES[setting], select.value);
    applySettings();
  });
}
part("fullscreen").addEventListener("click", async () => {
  const entering = !document.fullscreenElement;
  await toggleFullscreen();
  setChromeHidden(entering);
});
document.addEventListener("fullscreenchange", () => {
  if (!document.fullscreenElement) setChromeHidden(false);
});

function setChromeHidden(hidden) {
  root.classList.toggle("chrome-hidden", hidden);
}

/**
 * Taps and clicks as in the comic reader: the left third turns to the page on the left, the
 * right third to the one on the right (foliate-js maps these to back or forward by the book's
 * direction), the middle shows or hides the bars. Text being selected or a link is no tap.
 */
function onTap(point, event) {
  if (!opened) return;
  if (!tocPanel.hidden) return closeToc();
  const selection = event.view?.getSelection?.();
  if (selection && !selection.isCollapsed) return;
  const zone = zoneOf(point.x, part("viewport").getBoundingClientRect());
  if (zone === "left") view.goLeft();
  else if (zone === "right") view.goRight();
  else setChromeHidden(!root.classList.contains("chrome-hidden"));
}

/**
 * Reflowable text is swiped by foliate-js's own paginator; fixed-layout pages are swiped here.
 * Swiping left brings the page on the right.
 */
function onSwipe(dx) {
  if (!view.isFixedLayout) return;
  if (dx < 0) view.goRight();
  else view.goLeft();
}

function watchBookDocument(doc) {
  // A swipe on a fixed-layout page is a page turn, not a pan of the page.
  if (view.isFixedLayout) doc.documentElement.style.touchAction = "pinch-zoom";
  watchTapsAndSwipes(doc, { point: framePoint, onTap, onSwipe });
}
// The margins around the book's frames.
watchTapsAndSwipes(part("viewport"), { onTap, onSwipe });

function onKey(event) {
  if (typingInto(event) || event.altKey || event.ctrlKey || event.metaKey) return;
  // Keys typed in the book's frames never reach the page's own shortcuts (static/js/app.js).
  if (event.key === "?" && event.currentTarget !== window) {
    document.dispatchEvent(new Event("longbox:shortcuts"));
    return;
  }
  if (event.key === "ArrowLeft") view.goLeft();
  else if (event.key === "ArrowRight") view.goRight();
  else if (event.key === "PageDown" || event.key === " ") view.next();
  else if (event.key === "PageUp") view.prev();
  else if (event.key === "Escape") closeToc();
  else return;
  event.preventDefault();
}
addEventListener("keydown", onKey);

// The settings show at once, before the book is open (the styles follow once it is).
applySettings();
open().catch((error) => {
  part("error").hidden = false;
  part("error").textContent = window.pageMessage("openFailed", { reason: error?.message ?? error });
});
