/**
 * The PDF format plugin. pdf.js and @napi-rs/canvas run in PDF worker threads (worker-pool.ts)
 * started with the first PDF that is analysed or rendered, not when the server starts; sharp
 * loads with the first embedded JPEG page.
 */
import type { FormatPlugin } from "../../src/formats/contract.ts";
import { readPdfPage } from "./read-page.ts";
import { pdfWorkers } from "./worker-pool.ts";

/** PDF readers accept the header anywhere in the first KiB (ISO 32000-2, annex H tolerance). */
const HEADER_WINDOW = 1024;
const PDF_HEADER = new TextEncoder().encode("%PDF-");

function hasPdfHeader(head: Uint8Array): boolean {
  const window = head.subarray(0, HEADER_WINDOW + PDF_HEADER.length - 1);
  for (let start = window.indexOf(PDF_HEADER[0]!); start >= 0; start = window.indexOf(PDF_HEADER[0]!, start + 1)) {
    if (PDF_HEADER.every((byte, i) => window[start + i] === byte)) return true;
  }
  return false;
}

export const pdfPlugin: FormatPlugin = {
  id: "pdf",
  name: "PDF",
  extensions: ["pdf"],
  mediaTypes: ["application/pdf"],
  rendersPages: true,
  // A PDF worker takes seconds to start on a loaded machine (pdf.js loading in it).
  warm: async () => {
    void pdfWorkers.warm();
  },
  detect: (head) => (hasPdfHeader(head) ? 2 : 0),
  analyze: (path, ctx) => pdfWorkers.run({ kind: "analyze", path, limits: ctx.limits }, ctx.signal),
  readPage: readPdfPage,
};
