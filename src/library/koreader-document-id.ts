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
import { readSync } from "node:fs";

const SAMPLE_BYTES = 1024;
const SAMPLE_OFFSETS = [0, ...Array.from({ length: 11 }, (_, i) => SAMPLE_BYTES * 4 ** i)];

/**
 * The partial MD5 of the open file `fd`, lowercase hex. Synchronous: it runs in the digest
 * workers (file-digests.ts), which read one file at a time, never on the server thread.
 */
export function partialMd5OfFile(fd: number): string {
  const hasher = new Bun.CryptoHasher("md5");
  const sample = Buffer.alloc(SAMPLE_BYTES);
  for (const offset of SAMPLE_OFFSETS) {
    const bytesRead = readSync(fd, sample, 0, SAMPLE_BYTES, offset);
    if (bytesRead === 0) break;
    hasher.update(sample.subarray(0, bytesRead));
  }
  return hasher.digest("hex");
}
