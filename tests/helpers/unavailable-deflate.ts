/**
 * Makes zlib's deflateSync throw in the thread that imports this module (see
 * warm-up-failing-pdf-worker.ts).
 */
import zlib from "node:zlib";

zlib.deflateSync = () => {
  throw new Error("deflateSync is made unavailable by the test");
};
