// Type declarations for modules of pdfjs-dist that have none.
//
// Files of pdfjs-dist imported `with { type: "file" }`: Bun hands back a path (a real file in
// development, a /$bunfs/... path inside the compiled binary). The patterns are scoped to
// pdfjs-dist so they cannot clash with other declarations of "*.wasm".
declare module "pdfjs-dist/standard_fonts/*" {
  const path: string;
  export default path;
}
declare module "pdfjs-dist/wasm/*" {
  const path: string;
  export default path;
}
declare module "pdfjs-dist/cmaps/*" {
  const path: string;
  export default path;
}

// pdfjs-dist ships no types for its worker module; only its presence matters to pdf.js
// (see loadPdfJs in pdfjs-runtime.ts).
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: object;
}
