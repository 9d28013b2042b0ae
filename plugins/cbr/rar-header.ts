/**
 * Reads the RAR main archive header from the first bytes, before handing the file to unrar,
 * so that volumes of multi-volume sets and header-encrypted archives get a precise message
 * (unrar only reports a generic read error or a missing password for them).
 */
import { rarVersion } from "../../src/formats/magic.ts";

export interface RarMainHeader {
  version: 4 | 5;
  /** One volume of a multi-volume set. */
  volume: boolean;
  /** File names and headers are encrypted (-hp): nothing can be listed without the password. */
  headersEncrypted: boolean;
}

const RAR4_SIGNATURE_LENGTH = 7;
const RAR4_MAIN_HEADER = 0x73;
const RAR4_FLAG_VOLUME = 0x0001;
const RAR4_FLAG_HEADERS_ENCRYPTED = 0x0080;
const RAR5_SIGNATURE_LENGTH = 8;
const RAR5_MAIN_HEADER = 1;
const RAR5_ENCRYPTION_HEADER = 4;
const RAR5_HEADER_HAS_EXTRA = 0x0001;
const RAR5_HEADER_HAS_DATA = 0x0002;
const RAR5_ARCHIVE_VOLUME = 0x0001;

/** Null when the bytes are not a RAR signature followed by a readable main header. */
export function readRarMainHeader(head: Uint8Array): RarMainHeader | null {
  const version = rarVersion(head);
  if (version === 4) {
    const at = RAR4_SIGNATURE_LENGTH;
    if (head.length < at + 5 || head[at + 2] !== RAR4_MAIN_HEADER) return null;
    const flags = (head[at + 3] ?? 0) | ((head[at + 4] ?? 0) << 8);
    return { version, volume: (flags & RAR4_FLAG_VOLUME) !== 0, headersEncrypted: (flags & RAR4_FLAG_HEADERS_ENCRYPTED) !== 0 };
  }
  if (version === 5) {
    const reader = new VintReader(head, RAR5_SIGNATURE_LENGTH + 4); // skip the header CRC32
    reader.next(); // header size
    const type = reader.next();
    if (type === RAR5_ENCRYPTION_HEADER) return { version, volume: false, headersEncrypted: true };
    if (type !== RAR5_MAIN_HEADER) return null;
    const headerFlags = reader.next() ?? 0;
    if (headerFlags & RAR5_HEADER_HAS_EXTRA) reader.next();
    if (headerFlags & RAR5_HEADER_HAS_DATA) reader.next();
    const archiveFlags = reader.next();
    if (archiveFlags === undefined) return null;
    return { version, volume: (archiveFlags & RAR5_ARCHIVE_VOLUME) !== 0, headersEncrypted: false };
  }
  return null;
}

/** RAR5 variable-length integers: 7 bits per byte, high bit = more bytes follow. */
export class VintReader {
  constructor(
    private readonly bytes: Uint8Array,
    /** The next byte to read. */
    public at: number,
  ) {}

  next(): number | undefined {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.bytes[this.at++];
      if (byte === undefined) return undefined;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return undefined;
  }
}
