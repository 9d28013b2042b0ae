/**
 * Images drawn by the server where a book has none to show: the thumbnail of a book whose
 * cover and first page cannot be read (its title), and a page that is empty or cannot be
 * decoded (what is wrong with it). A client that asked for an image gets one, and the words on
 * it say why it is not the book's. Text is drawn from an SVG by sharp (librsvg), escaped.
 */
import sharp from "sharp";

export interface PlaceholderOptions {
  width: number;
  height: number;
  format: "webp" | "jpeg" | "png";
}

const MEDIA_TYPES = { webp: "image/webp", jpeg: "image/jpeg", png: "image/png" } as const;

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[character]!);

/** Words wrapped into at most `maxLines` lines of about `width` characters (the last one cut with an ellipsis). */
function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const pieces = word.match(new RegExp(`.{1,${width}}`, "gu")) ?? [];
    for (const piece of pieces) {
      if (line && line.length + 1 + piece.length > width) {
        lines.push(line);
        line = piece;
      } else line = line ? `${line} ${piece}` : piece;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines - 1), `${lines[maxLines - 1]!.slice(0, width - 1)}…`];
}

/** An image of `text` on a dark ground, `options.width` x `options.height`. */
export async function placeholderImage(text: string, options: PlaceholderOptions): Promise<{ bytes: Uint8Array; mediaType: string }> {
  const { width, height } = options;
  const fontSize = Math.max(10, Math.round(width / 12));
  const lines = wrap(text.trim() || "?", Math.max(4, Math.floor((width * 0.85) / (fontSize * 0.6))), Math.max(1, Math.floor((height * 0.8) / (fontSize * 1.3))));
  const top = height / 2 - ((lines.length - 1) * fontSize * 1.3) / 2;
  const tspans = lines.map((line, index) => `<tspan x="50%" y="${Math.round(top + index * fontSize * 1.3)}">${escapeXml(line)}</tspan>`).join("");
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="#3b4252"/>` +
    `<text font-family="DejaVu Sans, sans-serif" font-size="${fontSize}" fill="#eceff4" text-anchor="middle" dominant-baseline="middle">${tspans}</text></svg>`;
  const image = sharp(Buffer.from(svg));
  const encoded = options.format === "webp" ? image.webp() : options.format === "jpeg" ? image.jpeg() : image.png();
  return { bytes: new Uint8Array(await encoded.toBuffer()), mediaType: MEDIA_TYPES[options.format] };
}
