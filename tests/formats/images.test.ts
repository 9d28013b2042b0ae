/** Image sizes read from headers, checked against images sharp writes in every page format. */
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { probeImageSize, readImageSize, sniffImageMediaType } from "../../src/formats/images.ts";

const WIDTH = 37;
const HEIGHT = 23;
const base = () => sharp({ create: { width: WIDTH, height: HEIGHT, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } });

/** A 24-bit BMP written by hand (sharp cannot write BMP); negative height = top-down rows. */
function bmp(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(54);
  const view = new DataView(bytes.buffer);
  bytes.set([0x42, 0x4d]);
  view.setUint32(2, 54, true);
  view.setUint32(10, 54, true);
  view.setUint32(14, 40, true);
  view.setInt32(18, width, true);
  view.setInt32(22, -height, true);
  return bytes;
}

const FORMATS: ReadonlyArray<readonly [label: string, mediaType: string, make: () => Promise<Uint8Array>]> = [
  ["JPEG", "image/jpeg", async () => base().jpeg().toBuffer()],
  ["PNG", "image/png", async () => base().png().toBuffer()],
  ["GIF", "image/gif", async () => base().gif().toBuffer()],
  ["WebP VP8 (lossy)", "image/webp", async () => base().flatten().webp({ lossless: false }).toBuffer()],
  ["WebP VP8L (lossless)", "image/webp", async () => base().webp({ lossless: true }).toBuffer()],
  ["WebP VP8X (lossy with alpha)", "image/webp", async () => base().webp({ lossless: false }).toBuffer()],
  ["AVIF", "image/avif", async () => base().avif().toBuffer()],
  ["BMP", "image/bmp", async () => bmp(WIDTH, HEIGHT)],
];

describe("readImageSize", () => {
  for (const [label, mediaType, make] of FORMATS) {
    test(label, async () => {
      const bytes = new Uint8Array(await make());
      expect(sniffImageMediaType(bytes)).toBe(mediaType);
      expect(readImageSize(bytes)).toEqual({ width: WIDTH, height: HEIGHT });
    });
  }

  test("a JPEG whose SOF comes after a large EXIF block needs the second probe", async () => {
    const jpeg = new Uint8Array(await base().jpeg().toBuffer());
    const app1 = new Uint8Array(4 + 20_000);
    app1.set([0xff, 0xe1, (20_002 >> 8) & 0xff, 20_002 & 0xff]);
    const padded = new Uint8Array([...jpeg.subarray(0, 2), ...app1, ...jpeg.subarray(2)]);
    expect(readImageSize(padded.subarray(0, 8192))).toBeNull();
    const asked: number[] = [];
    const size = await probeImageSize(async (byteCount) => {
      asked.push(byteCount);
      return padded.subarray(0, byteCount);
    });
    expect(size).toEqual({ width: WIDTH, height: HEIGHT });
    expect(asked).toEqual([8192, 262144]);
  });

  test("truncated or unknown bytes give null, never an exception", async () => {
    const png = new Uint8Array(await base().png().toBuffer());
    expect(readImageSize(png.subarray(0, 20))).toBeNull();
    expect(readImageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00]))).toBeNull();
    expect(readImageSize(new Uint8Array(0))).toBeNull();
    expect(await probeImageSize(async () => new Uint8Array([1, 2, 3]))).toBeNull();
  });

  test("formats the header parsers do not know fall back to sharp's header reader", async () => {
    const tiff = new Uint8Array(await base().tiff().toBuffer());
    expect(readImageSize(tiff)).toBeNull();
    expect(await probeImageSize(async (byteCount) => tiff.subarray(0, byteCount))).toEqual({ width: WIDTH, height: HEIGHT });
  });
});
