/**
 * KOReader's id of a document for progress sync (kosync): the MD5 of up to twelve 1 KiB
 * samples of the file, as KOReader's `util.partialMD5` computes it (frontend/util.lua).
 *
 * The samples start at 1024 << 2i for i = -1..10. KOReader runs this under LuaJIT, where a
 * 32-bit shift by -2 is a shift by 30, which wraps to 0: the first sample is the file's start,
 * then 1 KiB, 4 KiB, 16 KiB ... 1 GiB. Each sample feeds the hash only the bytes actually read
 * (a sample cut short by the end of the file counts short), and the first sample that reads
 * nothing ends the loop. (Komga's port hashes the whole 1 KiB buffer after a short read, so its
 * ids differ from KOReader's for most files; this one must not.)
 */
import { open } from "node:fs/promises";
import type { Repositories } from "../db";
import type { Logger } from "../logging/logger";

const SAMPLE_BYTES = 1024;
const SAMPLE_OFFSETS = [0, ...Array.from({ length: 11 }, (_, i) => SAMPLE_BYTES * 4 ** i)];

/** The partial MD5 of the file at `path`, lowercase hex. */
export async function partialMd5File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("md5");
  const file = await open(path, "r");
  try {
    const sample = Buffer.alloc(SAMPLE_BYTES);
    for (const offset of SAMPLE_OFFSETS) {
      const { bytesRead } = await file.read(sample, 0, SAMPLE_BYTES, offset);
      if (bytesRead === 0) break;
      hasher.update(sample.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hasher.digest("hex");
}

/**
 * Gives the present books of a library that have no document ids yet (catalogued before
 * Longbox computed them) their ids, so every book can be synced without a deep scan. A file
 * that cannot be read is left for the next scan.
 */
export async function fillMissingDocumentIds(repositories: Repositories, libraryId: string, signal: AbortSignal, log: Logger): Promise<void> {
  for (const book of await repositories.catalogue.booksWithoutDocumentIds(libraryId)) {
    signal.throwIfAborted();
    try {
      await repositories.catalogue.setDocumentIds(book.id, await partialMd5File(book.filePath), book.filePath);
    } catch (error) {
      log.warn("scan: KOReader document id not computed", { path: book.filePath, error: error as Error });
    }
  }
}
