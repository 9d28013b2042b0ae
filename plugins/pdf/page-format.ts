/**
 * What readPage returns for every page of a PDF, by either path (the embedded JPEG, in the
 * server thread, or a rendering, in a PDF worker).
 */
export const PAGE_MEDIA_TYPE = "image/jpeg";
/** For renderings, and for embedded JPEGs that must be re-encoded. */
export const JPEG_QUALITY = 90;
