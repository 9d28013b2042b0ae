/**
 * Access to node-unrar-js (RARLAB's unrar compiled to WebAssembly), in memory only: entries
 * are extracted into Uint8Arrays, never written to disk, so hostile names (`../`, absolute
 * paths, links) cannot reach the filesystem.
 *
 * The wasm module is a singleton that holds ONE "current extractor" slot, and every call into
 * it is synchronous. Two books interleaving their calls would read each other's data, so all
 * work runs through a queue, and each piece of work runs synchronously from creating its
 * extractor to finishing with it.
 */
import { createExtractorFromData, type Extractor, type FileHeader, UnrarError } from "node-unrar-js";
// Embedded into the compiled binary and loaded from there (see notes/single-binary.md).
import wasmPath from "node-unrar-js/dist/js/unrar.wasm" with { type: "file" };
import type { BookAnalysisError } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import type { RarMainHeader } from "./rar-header.ts";

export type { FileHeader };

let wasmBinary: Promise<ArrayBuffer> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** Runs `work` on a fresh extractor for `data`, after any other RAR work has finished. */
export function withRarExtractor<T>(data: ArrayBuffer, work: (extractor: Extractor<Uint8Array>) => T): Promise<T> {
  const run = async (): Promise<T> => {
    wasmBinary ??= Bun.file(wasmPath).arrayBuffer();
    const extractor = await createExtractorFromData({ wasmBinary: await wasmBinary, data });
    return work(extractor);
  };
  const result = queue.then(run, run);
  queue = result.catch(() => undefined);
  return result;
}

/**
 * Instantiates unrar's WebAssembly now rather than on the first book's listing (10-40 ms on
 * this machine, more when it is loaded): an extractor made for no data is enough.
 */
export async function warmUnrar(): Promise<void> {
  await withRarExtractor(new ArrayBuffer(0), () => undefined);
}

/** Translates unrar's failures into typed errors a person can act on. */
export function rarFailure(error: unknown, header: RarMainHeader): BookAnalysisError {
  if (!(error instanceof UnrarError)) {
    const message = error instanceof Error ? error.message : String(error);
    return failure("parser", "corrupt", `The RAR archive could not be read: ${message}`);
  }
  const entry = error.file ? { entry: error.file } : {};
  switch (error.reason) {
    case "ERAR_MISSING_PASSWORD":
    case "ERAR_BAD_PASSWORD":
      return failure("parser", "encrypted", "The RAR archive is password protected; encrypted archives are not supported", entry);
    case "ERAR_EREAD":
    case "ERAR_EOPEN":
    case "ERAR_EREFERENCE":
      // unrar asks for the next volume of a set and fails to open it.
      return header.volume
        ? multiVolumeFailure()
        : failure("parser", "corrupt", `The RAR archive is damaged or truncated (${error.message})`, entry);
    case "ERAR_UNKNOWN_FORMAT":
      return failure("parser", "unsupported", "The RAR archive uses a format version that is not supported", entry);
    case "ERAR_NO_MEMORY":
      return failure("parser", "limit_exceeded", "The RAR archive needs more memory to unpack than is available", entry);
    default:
      return failure("parser", "corrupt", `The RAR archive is damaged (${error.message})`, entry);
  }
}

export function multiVolumeFailure(): BookAnalysisError {
  return failure(
    "parser",
    "multi_volume",
    "The file is one volume of a multi-volume RAR set; multi-volume archives are not supported (join the set into one archive)",
  );
}
