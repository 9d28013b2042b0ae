/** KOReader's partial MD5 computed the plain way, as the reference the implementation is checked against. */
import { createHash } from "node:crypto";

/** The sample offsets of KOReader's util.partialMD5 that fall inside a file of `size` bytes. */
export const sampleOffsets = (size: number) => [0, ...Array.from({ length: 11 }, (_, i) => 1024 * 4 ** i)].filter((offset) => offset < size);

/** The whole file in memory, the samples sliced out (a short one stays short) and hashed at once. */
export function referencePartialMd5(bytes: Uint8Array): string {
  return createHash("md5")
    .update(Buffer.concat(sampleOffsets(bytes.length).map((offset) => bytes.subarray(offset, offset + 1024))))
    .digest("hex");
}
