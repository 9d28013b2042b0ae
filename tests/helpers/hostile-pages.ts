/**
 * Comic archives made to cost memory when a page is decoded (issue #10, item 3), written
 * without ever holding the page in memory: the page entry is deflated (natively) 1 MiB at a
 * time and the ZIP records around it are written here.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createDeflateRaw, crc32 } from "node:zlib";

const MiB = 1024 * 1024;

/** The first 33 bytes of a PNG (signature and IHDR) claiming this size; nothing follows. */
export function pngHeader(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.set([8, 2, 0, 0, 0], 24); // 8-bit RGB
  header.writeUInt32BE(crc32(header.subarray(12, 29)) >>> 0, 29);
  return header;
}

/**
 * A CBZ whose one page `001.png` inflates to `megabytes` MiB of almost nothing: zeros with a
 * stray byte every 2 KiB, which keeps the compression ratio (about 100:1) inside the default
 * limit of 1000, so only the decoding itself can refuse it. With `head`, the page starts with
 * those bytes (a believable image header) and the rest is the same filler.
 */
export async function writeInflatingPageCbz(path: string, megabytes: number, head?: Uint8Array): Promise<string> {
  const filler = new Uint8Array(MiB);
  for (let at = 0; at < MiB; at += 2048) filler[at] = 0x5a;
  const deflater = createDeflateRaw({ level: 1 });
  const compressed: Buffer[] = [];
  deflater.on("data", (data: Buffer) => compressed.push(data));
  const ended = new Promise((resolve) => deflater.on("end", resolve));
  let crc = 0;
  for (let index = 0; index < megabytes; index++) {
    const chunk = index === 0 && head ? Buffer.concat([head, filler.subarray(head.length)]) : filler;
    crc = crc32(chunk, crc);
    deflater.write(chunk);
  }
  deflater.end();
  await ended;
  const data = Buffer.concat(compressed);
  const name = Buffer.from("001.png");
  const size = megabytes * MiB;

  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(name.length, 26);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42); // local header offset

  const directoryOffset = local.length + name.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(directoryOffset, 16);

  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.concat([local, name, data, central, name, end]));
  return path;
}
