/**
 * An EPUB as a web publication: the spine is the reading order, the other manifest items are
 * resources, and the table of contents comes from the EPUB 3 navigation document, else from
 * the EPUB 2 NCX. Every href is a path inside the book (a ZIP entry name, plus #fragment).
 */
import type { Publication, PublicationLink } from "../../src/formats/contract.ts";
import { attribute, childElement, childElements, decodeXmlBytes, descendantElements, parseXml, type XmlElement } from "../../src/formats/xml.ts";
import { resolveHref } from "./book-paths.ts";
import type { EpubBook } from "./epub-book.ts";

const NCX_MEDIA_TYPE = "application/x-dtbncx+xml";

export async function describePublication(book: EpubBook): Promise<Publication> {
  const spine = book.spine;
  const spinePaths = new Set(spine.map((item) => item.path));
  const resources = [...book.pkg.manifestByPath.values()]
    .filter((item) => !spinePaths.has(item.path) && book.has(item.path))
    .map((item) => ({ href: item.path, type: item.mediaType }));
  return {
    metadata: book.pkg.metadata,
    layout: book.pkg.fixedLayout ? "fixed" : "reflowable",
    readingOrder: spine.map((item) => ({ href: item.path, type: item.mediaType })),
    resources,
    toc: await tableOfContents(book),
    cover: book.pkg.cover,
    opening: await openingFiles(book),
  };
}

const CONTAINER_PATH = "META-INF/container.xml";
const SCRIPT_TYPES = /^(?:application|text)\/(?:x-)?(?:javascript|ecmascript)$/;

/**
 * What foliate-js (static/js/reader/epub.js) reads to open the book, in its order: the container,
 * the package, the navigation document (else the NCX); then where the text starts (the navigation
 * document's bodymatter landmark, else the package's guide or first linear item) and the files
 * that document links to, which it turns into blob: addresses one after another.
 */
async function openingFiles(book: EpubBook): Promise<Publication["opening"]> {
  const items = [...book.pkg.manifestByPath.values()];
  const nav = items.find((item) => item.properties.includes("nav") && book.has(item.path));
  const ncx = items.find((item) => item.mediaType === NCX_MEDIA_TYPE && book.has(item.path));
  const navigation = nav ?? ncx;
  const start = (nav ? await landmark(book, nav.path) : null) ?? book.pkg.textStart;
  return {
    package: [CONTAINER_PATH, book.pkg.path, ...(navigation ? [navigation.path] : [])],
    textStart: start && book.has(start) ? [start, ...(await linkedFiles(book, start))] : [],
  };
}

/** The bodymatter (or "text") landmark of an EPUB 3 navigation document. */
async function landmark(book: EpubBook, navPath: string): Promise<string | null> {
  const document = await parsedDocument(book, navPath);
  const landmarks = document
    ? descendantElements(document, "nav").find((element) => (attribute(element, "type") ?? "").split(/\s+/).includes("landmarks"))
    : undefined;
  const entry = landmarks
    ? descendantElements(landmarks, "a").find((link) => /\b(?:bodymatter|text)\b/.test(attribute(link, "type") ?? ""))
    : undefined;
  return entry ? resolveHref(navPath, attribute(entry, "href") ?? "") : null;
}

/** The book's files a document links to (`<link href>`, `src`, SVG `<image href>`), as foliate-js loads them: manifest items, no scripts. */
async function linkedFiles(book: EpubBook, documentPath: string): Promise<string[]> {
  const document = await parsedDocument(book, documentPath);
  if (!document) return [];
  const references = [
    ...descendantElements(document, "link").map((link) => attribute(link, "href")),
    ...everyElement(document).map((element) => attribute(element, "src")),
    ...descendantElements(document, "image").map((image) => attribute(image, "href")),
  ];
  const paths = references.flatMap((reference) => {
    const path = reference ? resolveHref(documentPath, reference) : null;
    const item = path ? book.pkg.manifestByPath.get(path) : undefined;
    return item && !SCRIPT_TYPES.test(item.mediaType) && book.has(item.path) ? [item.path] : [];
  });
  return [...new Set(paths)];
}

async function parsedDocument(book: EpubBook, path: string): Promise<XmlElement | null> {
  try {
    return parseXml(decodeXmlBytes(await book.read(path)), path);
  } catch {
    return null; // a damaged document only costs its preloads
  }
}

function everyElement(root: XmlElement): XmlElement[] {
  return root.children.flatMap((child) => [child, ...everyElement(child)]);
}

async function tableOfContents(book: EpubBook): Promise<PublicationLink[]> {
  const items = [...book.pkg.manifestByPath.values()];
  const nav = items.find((item) => item.properties.includes("nav"));
  const ncx = items.find((item) => item.mediaType === NCX_MEDIA_TYPE);
  for (const [document, read] of [
    [nav, navToc],
    [ncx, ncxToc],
  ] as const) {
    if (!document || !book.has(document.path)) continue;
    try {
      const toc = read(parseXml(decodeXmlBytes(await book.read(document.path)), document.path), document.path);
      if (toc.length > 0) return toc;
    } catch {
      // A damaged navigation document only costs the table of contents, not the book.
    }
  }
  return [];
}

/** EPUB 3: `<nav epub:type="toc"><ol><li><a href>...</a><ol>...</ol></li></ol></nav>`. */
function navToc(document: XmlElement, documentPath: string): PublicationLink[] {
  const nav = descendantElements(document, "nav").find((element) => (attribute(element, "type") ?? "").split(/\s+/).includes("toc"));
  const list = nav ? descendantElements(nav, "ol")[0] : undefined;
  const entries = (ol: XmlElement): PublicationLink[] =>
    childElements(ol, "li").flatMap((li) => {
      const label = childElement(li, "a") ?? childElement(li, "span");
      const href = label ? resolveLink(documentPath, attribute(label, "href")) : null;
      const nested = childElement(li, "ol");
      const children = nested ? entries(nested) : [];
      // Readium links need an href: an entry without one stands for its first child.
      const target = href ?? children[0]?.href;
      if (!label || !target) return children;
      return [{ href: target, title: textContent(label), ...(children.length > 0 ? { children } : {}) }];
    });
  return list ? entries(list) : [];
}

/** EPUB 2: `<navMap><navPoint><navLabel><text/></navLabel><content src/><navPoint/>...</navPoint></navMap>`. */
function ncxToc(document: XmlElement, documentPath: string): PublicationLink[] {
  const navMap = descendantElements(document, "navMap")[0];
  const entries = (parent: XmlElement): PublicationLink[] =>
    childElements(parent, "navPoint").flatMap((point) => {
      const content = childElement(point, "content");
      const href = content ? resolveLink(documentPath, attribute(content, "src")) : null;
      const label = childElement(point, "navLabel");
      const children = entries(point);
      if (!href) return children;
      return [{ href, title: label ? textContent(label) : "", ...(children.length > 0 ? { children } : {}) }];
    });
  return navMap ? entries(navMap) : [];
}

/** An href relative to its document as a path inside the book, keeping its #fragment. */
function resolveLink(documentPath: string, href: string | undefined): string | null {
  if (!href) return null;
  const path = resolveHref(documentPath, href);
  const hash = href.indexOf("#");
  return path ? (hash >= 0 ? path + href.slice(hash) : path) : null;
}

function textContent(element: XmlElement): string {
  const parts = [element.text, ...element.children.map(textContent)];
  return parts.join(" ").replace(/\s+/g, " ").trim();
}
