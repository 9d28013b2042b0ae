/** The format plugins built into the server, in detection tie-break order. */
import type { FormatPlugin } from "../src/formats/contract.ts";
import { cb7Plugin } from "./cb7/index.ts";
import { cbrPlugin } from "./cbr/index.ts";
import { cbtPlugin } from "./cbt/index.ts";
import { cbzPlugin } from "./cbz/index.ts";
import { epubPlugin } from "./epub/index.ts";
import { pdfPlugin } from "./pdf/index.ts";

export const builtinPlugins: readonly FormatPlugin[] = [
  cbzPlugin,
  cbrPlugin,
  epubPlugin,
  pdfPlugin,
  cb7Plugin,
  cbtPlugin,
];
