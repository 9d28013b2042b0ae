/**
 * Renders the web app icons (static/icons/icon-192.png, icon-512.png) from static/icons/icon.svg.
 * Run after changing the SVG: `npx bun scripts/render-icons.ts`. The PNGs are committed because
 * phones want PNG icons for the home screen and the server should not render them at start.
 */
import { Resvg } from "@resvg/resvg-js";
import { join } from "node:path";

const folder = join(import.meta.dir, "..", "static", "icons");
const svg = await Bun.file(join(folder, "icon.svg")).text();
for (const size of [192, 512]) {
  const png = new Resvg(svg, { fitTo: { mode: "width", value: size } }).render().asPng();
  await Bun.write(join(folder, `icon-${size}.png`), png);
  console.log(`icon-${size}.png: ${png.length} bytes`);
}
