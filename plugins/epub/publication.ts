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
  };
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
