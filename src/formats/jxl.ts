/**
 * JPEG XL pages. The sharp bundled with Longbox reads no JPEG XL, so such a page is decoded
 * here with libjxl compiled to WebAssembly (@jsquash/jxl), and sharp then works on its pixels
 * (thumbnails, resizing, conversion for clients that do not accept image/jxl). The size of a
 * page is read from the codestream's header without decoding (images.ts, jxlSize).
 *
 * The decoder's wasm is embedded in the compiled binary (`type: "file"`, like unrar's) and
 * compiled once, on the first JPEG XL page. A decode runs synchronously on the calling thread.
 */
import { init, default as decodeWithLibjxl } from "@jsquash/jxl/decode.js";
import wasmPath from "@jsquash/jxl/codec/dec/jxl_dec.wasm" with { type: "file" };

export const JXL_MEDIA_TYPE = "image/jxl";

let ready: Promise<unknown> | undefined;

/** The image's pixels as RGBA, 8 bits per channel; throws when libjxl cannot decode it. */
export async function decodeJxl(bytes: Uint8Array): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  ready ??= Bun.file(wasmPath)
    .arrayBuffer()
    .then((wasmBinary) => init({ wasmBinary }));
  try {
    await ready;
  } catch (error) {
    ready = undefined; // a later page tries again
    throw error;
  }
  // libjxl reads from its own copy: hand it exactly the view's bytes.
  const { data, width, height } = await decodeWithLibjxl(bytes.slice().buffer);
  return { data, width, height };
}
