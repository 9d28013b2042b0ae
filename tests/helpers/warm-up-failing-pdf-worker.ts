/**
 * The PDF worker (plugins/pdf/worker.ts) in a thread where zlib's deflateSync throws: the
 * worker's warm-up (plugins/pdf/warm-up.ts), which deflates its image with it, fails, while
 * pdf.js (which inflates with DecompressionStream) works as ever. For testing that a worker
 * whose warm-up failed still answers its jobs.
 */
import "./unavailable-deflate.ts"; // first: modules are evaluated in the order they are imported
import "../../plugins/pdf/worker.ts";
