/**
 * The EPUB reader: foliate-js renders the book, which it reads file by file from the book's
 * resource endpoint (container, package document, XHTML, CSS, images). Every document it
 * shows is a blob: copy inside an iframe of the site's origin; a blob: document inherits this
 * page's Content-Security-Policy, whose scripts need this response's nonce, so no markup of a
 * book runs a script (foliate-js also never loads the book's script files). Progress is saved as a Readium locator (holding the CFI) with the progression through the book.
 */
import "foliate-js/view.js";
import { EPUB } from "foliate-js/epub.js";
import { progressSaver, toggleFullscreen, typingInto } from "./progress.js";

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

/** Vendor display hints foliate-js looks for; Longbox's reader does not need them, so they are not probed for. */
const UNUSED_HINTS = new Set(["META-INF/com.apple.ibooks.display-options.xml", "META-INF/com.kobobooks.display-options.xml"]);

const loader = {
  loadText: async (path) => (UNUSED_HINTS.has(path) ? null : ((await fetchResource(path))?.text() ?? null)),
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
const remembered = (key, allowed, fallback) => {
  const value = localStorage.getItem(key);
  return allowed.includes(value) ? value : fallback;
};
const settings = {
  theme: remembered("longbox.epub.theme", Object.keys(THEMES), "light"),
  font: remembered("longbox.epub.font", Object.keys(FONTS), "publisher"),
  size: Number(remembered("longbox.epub.size", ["80", "90", "100", "110", "120", "140", "160", "180", "200"], "100")),
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
view.setAttribute("aria-label", "Book text");
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
    link.textContent = item.label?.trim() || "Untitled";
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

function onRelocate({ detail }) {
  const fraction = Math.min(Math.max(Number(detail.fraction) || 0, 0), 1);
  part("position").textContent = `${Math.round(fraction * 100)}%`;
  part("chapter").textContent = detail.tocItem?.label?.trim() ?? "";
  root.dataset.location = detail.cfi ?? "";
  // Opening the book is not reading it: only moves after the first position are saved.
  if (!opened || !detail.cfi || detail.cfi === data.startCfi) return;
  const index = detail.section?.current ?? 0;
  saver.save({
    page: Math.min(index + 1, Number(data.pageCount)),
    progression: fraction,
    locator: {
      href: view.book.sections[index]?.id ?? "",
      type: "application/xhtml+xml",
      ...(detail.tocItem?.label ? { title: String(detail.tocItem.label).trim().slice(0, 1024) } : {}),
      locations: { cfi: detail.cfi, position: index + 1, totalProgression: fraction },
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
  book.transformTarget?.addEventListener("data", lockDownDocuments);
  await view.open(book);
  view.addEventListener("relocate", onRelocate);
  // Keys pressed after clicking into the text reach the book's document, not this page.
  view.addEventListener("load", ({ detail }) => detail.doc?.addEventListener("keydown", onKey));
  applySettings();
  part("toc").append(tocList(book.toc ?? []));
  root.dir = book.dir === "rtl" ? "rtl" : "ltr";
  await resume();
  opened = true;
  root.dataset.ready = "true";
}

part("prev").addEventListener("click", () => view.prev());
part("next").addEventListener("click", () => view.next());
part("smaller").addEventListener("click", () => changeSize(-1));
part("larger").addEventListener("click", () => changeSize(1));
const SIZE_STEPS = [80, 90, 100, 110, 120, 140, 160, 180, 200];
function changeSize(direction) {
  const index = SIZE_STEPS.indexOf(settings.size) + direction;
  settings.size = SIZE_STEPS[Math.min(Math.max(index, 0), SIZE_STEPS.length - 1)];
  localStorage.setItem("longbox.epub.size", String(settings.size));
  applySettings();
}
for (const select of root.querySelectorAll("select[data-setting]")) {
  const setting = select.dataset.setting;
  select.value = settings[setting];
  select.addEventListener("change", () => {
    settings[setting] = select.value;
    localStorage.setItem(`longbox.epub.${setting}`, select.value);
    applySettings();
  });
}
part("fullscreen").addEventListener("click", async () => {
  const entering = !document.fullscreenElement;
  await toggleFullscreen();
  root.classList.toggle("chrome-hidden", entering);
});
document.addEventListener("fullscreenchange", () => {
  if (!document.fullscreenElement) root.classList.remove("chrome-hidden");
});

function onKey(event) {
  if (typingInto(event) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === "ArrowLeft") view.goLeft();
  else if (event.key === "ArrowRight") view.goRight();
  else if (event.key === "PageDown" || event.key === " ") view.next();
  else if (event.key === "PageUp") view.prev();
  else if (event.key === "Escape") closeToc();
  else return;
  event.preventDefault();
}
addEventListener("keydown", onKey);

open().catch((error) => {
  part("error").hidden = false;
  part("error").textContent = `This book could not be opened: ${error?.message ?? error}`;
});
