/** Generated libraries for the benchmarks: real CBZ files of noisy JPEG pages. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import sharp from "sharp";

/** Distinct noisy JPEG pages (noise compresses badly, so pages have realistic sizes). */
export async function makePages(count: number, width: number, height: number): Promise<Uint8Array[]> {
  const pages: Uint8Array[] = [];
  for (let index = 0; index < count; index++) {
    const noise = sharp({
      create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128 + index, sigma: 40 } },
    });
    pages.push(new Uint8Array(await noise.jpeg({ quality: 80 }).toBuffer()));
  }
  return pages;
}

/** `books` CBZ files in `seriesCount` folders; each book differs by one small entry (its own hash). */
export async function generateLibrary(root: string, books: number, seriesCount: number, pages: Uint8Array[]): Promise<string[]> {
  const files: string[] = [];
  for (let index = 0; index < books; index++) {
    const series = `Series ${String(index % seriesCount).padStart(3, "0")}`;
    const path = join(root, series, `${series} #${String(Math.floor(index / seriesCount) + 1).padStart(3, "0")}.cbz`);
    const entries: Record<string, Uint8Array> = { "book-id.txt": new TextEncoder().encode(String(index)) };
    pages.forEach((page, number) => (entries[`${String(number + 1).padStart(3, "0")}.jpg`] = page));
    mkdirSync(join(root, series), { recursive: true });
    writeFileSync(path, zipSync(entries, { level: 0 }));
    files.push(path);
  }
  return files;
}
