/**
 * Where each file entry's data lies in a RAR archive, from a walk over the block headers (RAR 4
 * and RAR 5), so that an entry stored without compression can be sent from the file as it is
 * (zero-copy, like a stored ZIP entry) instead of going through unrar. Only the sizes and
 * offsets are read here; names, flags and methods come from unrar's own listing, matched entry
 * by entry in archive order. Anything unexpected (a truncated header, an encrypted header
 * block, a count that does not match unrar's) gives no offsets at all, and pages are extracted
 * by unrar as before.
 */
import { VintReader } from "./rar-header.ts";

export interface RarDataRange {
  offset: number;
  packSize: number;
}

const RAR4_MARKER_LENGTH = 7;
const RAR4_FILE_HEADER = 0x74;
const RAR4_END = 0x7b;
const RAR4_LONG_BLOCK = 0x8000;
const RAR4_LARGE_FILE = 0x0100;
const RAR5_MARKER_LENGTH = 8;
const RAR5_FILE_HEADER = 2;
const RAR5_ENCRYPTION_HEADER = 4;
const RAR5_END = 5;
const RAR5_HAS_EXTRA = 0x0001;
const RAR5_HAS_DATA = 0x0002;

/** The data range of every file entry (directories included), in archive order; null when the walk fails. */
export function rarDataRanges(bytes: Uint8Array, version: 4 | 5): RarDataRange[] | null {
  try {
    return version === 4 ? rar4Ranges(bytes) : rar5Ranges(bytes);
  } catch {
    return null;
  }
}

function rar4Ranges(bytes: Uint8Array): RarDataRange[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ranges: RarDataRange[] = [];
  for (let at = RAR4_MARKER_LENGTH; at + 7 <= bytes.length; ) {
    const type = view.getUint8(at + 2);
    const flags = view.getUint16(at + 3, true);
    const headerSize = view.getUint16(at + 5, true);
    if (headerSize < 7) return null;
    if (type === RAR4_END) return ranges;
    let dataSize = 0;
    if (type === RAR4_FILE_HEADER) {
      dataSize = view.getUint32(at + 7, true) + (flags & RAR4_LARGE_FILE ? view.getUint32(at + 32, true) * 2 ** 32 : 0);
      ranges.push({ offset: at + headerSize, packSize: dataSize });
    } else if (flags & RAR4_LONG_BLOCK) {
      dataSize = view.getUint32(at + 7, true);
    }
    at += headerSize + dataSize;
  }
  return ranges; // no end block: old archives may stop without one
}

function rar5Ranges(bytes: Uint8Array): RarDataRange[] | null {
  const ranges: RarDataRange[] = [];
  for (let at = RAR5_MARKER_LENGTH; at + 4 < bytes.length; ) {
    const reader = new VintReader(bytes, at + 4); // after the header CRC32
    const headerSize = reader.next();
    if (headerSize === undefined) return null;
    const headerStart = reader.at;
    const type = reader.next();
    const flags = reader.next();
    if (type === undefined || flags === undefined) return null;
    if (type === RAR5_ENCRYPTION_HEADER) return null;
    if (flags & RAR5_HAS_EXTRA && reader.next() === undefined) return null;
    const dataSize = flags & RAR5_HAS_DATA ? reader.next() : 0;
    if (dataSize === undefined) return null;
    const dataStart = headerStart + headerSize;
    if (type === RAR5_FILE_HEADER) ranges.push({ offset: dataStart, packSize: dataSize });
    if (type === RAR5_END) return ranges;
    at = dataStart + dataSize;
  }
  return ranges;
}
