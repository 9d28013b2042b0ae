/**
 * Analysis of a PDF: page count, page sizes and document metadata, read with pdf.js in a PDF
 * worker (see worker.ts).
 */
import type { AnalysisLimits, AnalysisResult, PageInfo } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { PAGE_MEDIA_TYPE } from "./page-format.ts";
import { pdfMetadata, xmpFields, type PdfInfo } from "./pdf-metadata.ts";
import { withPdfDocument, type PdfDocument } from "./pdfjs-runtime.ts";

function pageFileName(pageNumber: number): string {
  return `page-${String(pageNumber).padStart(4, "0")}`;
}

export function analyzePdf(path: string, limits: AnalysisLimits): Promise<AnalysisResult> {
  return withPdfDocument(path, limits, async (document) => {
    // pdf.js counts the pages it finds in the page tree, but a hostile /Count can still claim
    // millions: refuse more than the entry limit instead of listing them.
    if (document.numPages > limits.maxEntries) {
      throw failure("parser", "limit_exceeded", `the PDF claims ${document.numPages} pages, more than the limit of ${limits.maxEntries}`);
    }
    const pages: PageInfo[] = [];
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
      pages.push({ fileName: pageFileName(pageNumber), mediaType: PAGE_MEDIA_TYPE, ...(await pageSize(document, pageNumber)), size: null });
    }
    const { info, metadata } = await document.getMetadata();
    const values = pdfMetadata(info as PdfInfo, xmpFields(metadata?.getRaw()));
    return {
      format: "pdf",
      mediaType: "application/pdf",
      pages,
      metadata: values && { source: "pdf", values },
      coverPage: pages.length > 0 ? 1 : null,
    };
  });
}

/**
 * The page size in PDF points (1/72 in) at scale 1, rotation applied, rounded: the aspect ratio
 * is what readers need, and it needs no rendering. (A /UserUnit is not applied: it would turn
 * a 15 m poster into 44064 "pixels" without changing the shape.) Null when the page is broken.
 */
async function pageSize(document: PdfDocument, pageNumber: number): Promise<Pick<PageInfo, "width" | "height">> {
  try {
    const page = await document.getPage(pageNumber);
    const { width, height } = page.getViewport({ scale: 1 });
    page.cleanup();
    return { width: Math.round(width), height: Math.round(height) };
  } catch {
    return { width: null, height: null };
  }
}
