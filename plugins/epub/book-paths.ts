/**
 * Paths inside an EPUB. Manifest hrefs are URLs relative to the document that holds them;
 * resource paths asked for by the web reader are untrusted. Both end up as normalised ZIP
 * entry names, and neither may climb out of the book with `..`.
 */

/**
 * Normalises a `/`-separated path inside the book: drops `.` and empty segments, applies `..`.
 * Null when the path would leave the book's root or contains characters no entry name has.
 */
export function normaliseBookPath(path: string): string | null {
  if (path.includes("\0") || path.includes("\\")) return null;
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) return null;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return segments.length > 0 ? segments.join("/") : null;
}

/** The folder part of an entry name, with a trailing slash ("" at the root). */
export function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

/**
 * An href (relative URL, possibly percent-encoded, possibly with a #fragment) resolved against
 * the folder of the document that contains it. Null for external URLs and escapes.
 */
export function resolveHref(documentPath: string, href: string): string | null {
  const withoutFragment = href.split("#")[0]?.split("?")[0] ?? "";
  if (withoutFragment === "" || /^[a-z][a-z0-9+.-]*:/i.test(withoutFragment)) return null;
  let decoded = withoutFragment;
  try {
    decoded = decodeURIComponent(withoutFragment);
  } catch {
    // Not valid percent-encoding: the href is the literal entry name.
  }
  return normaliseBookPath(decoded.startsWith("/") ? decoded : folderOf(documentPath) + decoded);
}
