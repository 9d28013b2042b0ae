/**
 * The SHA-256 of an open file, read synchronously in 1 MiB chunks into one buffer: constant
 * memory whatever the file size. It runs in the digest workers (file-digests.ts), where a
 * synchronous read costs a system call instead of a round trip through the thread pool per
 * chunk; `between` is called every CHUNKS_BETWEEN_PAUSES chunks so that the caller can stop
 * (a cancelled scan) or let messages in.
 */
import { readSync } from "node:fs";

const CHUNK_BYTES = 1 << 20;
/** 64 MiB between pauses: a few tens of milliseconds of hashing. */
export const CHUNKS_BETWEEN_PAUSES = 64;

const buffer = Buffer.allocUnsafe(CHUNK_BYTES);

export async function sha256OfFile(fd: number, between: () => Promise<void>): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for (let position = 0, chunks = 1; ; chunks++) {
    const bytesRead = readSync(fd, buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    hasher.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
    if (chunks % CHUNKS_BETWEEN_PAUSES === 0) await between();
  }
  return hasher.digest("hex");
}
