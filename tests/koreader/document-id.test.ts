/**
 * KOReader's partial MD5 (kosync document id): KOReader's own published values for its test
 * files, and files whose last sample is short, checked against a reference computed here the
 * plain way (the whole file in memory, the samples sliced out and hashed at once).
 */
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { documentIdOf } from "../../src/library/file-digests";
import { fixture } from "../helpers/fixtures";
import { tempFolder } from "../helpers/library";
import { referencePartialMd5, sampleOffsets } from "./support";

/** The id as a scan computes it: in a digest worker thread, from one open file. */
const partialMd5File = (path: string) => documentIdOf(path, new AbortController().signal);

const folder = tempFolder("longbox-partial-md5-");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Komga's port: the whole 1 KiB buffer is hashed even after a short read. */
function paddedLikeKomga(bytes: Uint8Array): string {
  const samples = sampleOffsets(bytes.length).map((offset) => {
    const sample = Buffer.alloc(1024);
    sample.set(bytes.subarray(offset, offset + 1024));
    return sample;
  });
  return createHash("md5").update(Buffer.concat(samples)).digest("hex");
}

test("KOReader's own test files give the values its spec asserts", async () => {
  expect(await partialMd5File(fixture("pdf/stump/tall.pdf"))).toBe("41cce710f34e5ec21315e19c99821415");
  expect(await partialMd5File(fixture("epub/stump/leaves.epub"))).toBe("59d481d168cca6267322f150c5f6a2a3");
});

test("a short last sample is hashed as read, as KOReader does (not padded, as Komga does)", async () => {
  for (const size of [1500, 5000, 65_536 + 464, 16_384 + 100]) {
    const bytes = new Uint8Array(size).map((_, i) => (i * 31 + (i >> 8)) & 0xff);
    const path = join(folder, `sample-${size}.bin`);
    writeFileSync(path, bytes);
    const expected = referencePartialMd5(readFileSync(path));
    expect({ size, hash: await partialMd5File(path) }).toEqual({ size, hash: expected });
    expect({ size, hash: paddedLikeKomga(bytes) }).not.toEqual({ size, hash: expected });
  }
});

test("edge sizes: empty, one byte, exactly one sample, a sample that ends at the end of the file", async () => {
  for (const size of [0, 1, 1024, 2048]) {
    const bytes = new Uint8Array(size).fill(7);
    const path = join(folder, `edge-${size}.bin`);
    writeFileSync(path, bytes);
    expect({ size, hash: await partialMd5File(path) }).toEqual({ size, hash: referencePartialMd5(bytes) });
  }
  expect(await partialMd5File(join(folder, "edge-0.bin"))).toBe(createHash("md5").digest("hex"));
});
