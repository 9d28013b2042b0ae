/**
 * Which entries of a comic archive (cbz, cbr, or a third-party container) are pages, in which
 * order, and which ComicInfo.xml describes the book. Works on entry names only.
 */
import { pageMediaTypeForName } from "./images.ts";

/** Natural order ("page 2" before "page 10"), case-insensitive, the same on every host. */
const naturalOrder = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

export function compareNatural(a: string, b: string): number {
  return naturalOrder.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

function baseName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** macOS resource forks and Finder files, hidden files, Windows thumbnail caches. */
export function isJunkEntry(name: string): boolean {
  const segments = name.split("/").filter((segment) => segment !== "");
  const base = segments.at(-1) ?? "";
  return (
    segments.some((segment) => segment === "__MACOSX" || segment.startsWith(".")) ||
    base.toLowerCase() === "thumbs.db"
  );
}

/** Page entry names in reading order: images anywhere in the tree, junk skipped, by full path. */
export function selectPages(names: Iterable<string>): string[] {
  const pages: string[] = [];
  for (const name of names) {
    if (!name.endsWith("/") && !isJunkEntry(name) && pageMediaTypeForName(name)) pages.push(name);
  }
  return pages.sort(compareNatural);
}

/**
 * The ComicInfo.xml that describes the book, matched case-insensitively. The shallowest one
 * wins (a root ComicInfo.xml beats one in a subfolder, whatever the central directory order).
 */
export function findComicInfo(names: Iterable<string>): string | undefined {
  let best: { name: string; depth: number } | undefined;
  for (const name of names) {
    if (isJunkEntry(name) || baseName(name).toLowerCase() !== "comicinfo.xml") continue;
    const depth = name.split("/").length;
    if (!best || depth < best.depth || (depth === best.depth && compareNatural(name, best.name) < 0)) best = { name, depth };
  }
  return best?.name;
}
