/** Container signatures, checked on the first bytes of a file by the plugins' `detect`. */

const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY_ARCHIVE = [0x50, 0x4b, 0x05, 0x06];
const RAR4 = [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00];
const RAR5 = [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00];
const EPUB_MIMETYPE_ENTRY = new TextEncoder().encode("mimetypeapplication/epub+zip");

function matchesAt(bytes: Uint8Array, signature: ArrayLike<number>, at: number): boolean {
  if (at + signature.length > bytes.length) return false;
  for (let index = 0; index < signature.length; index++) if (bytes[at + index] !== signature[index]) return false;
  return true;
}

/**
 * Whether the bytes start a ZIP archive: a local header or an empty archive's end record at
 * offset 0, or a local header after some leading junk (self-extractor stubs) within the head.
 */
export function looksLikeZip(head: Uint8Array): boolean {
  if (matchesAt(head, ZIP_LOCAL_HEADER, 0) || matchesAt(head, ZIP_EMPTY_ARCHIVE, 0)) return true;
  for (let at = 1; at + 4 <= head.length; at++) {
    if (head[at] === 0x50 && matchesAt(head, ZIP_LOCAL_HEADER, at)) return true;
  }
  return false;
}

/**
 * An EPUB as the OCF specification requires it: the first entry is an uncompressed file named
 * `mimetype` holding `application/epub+zip`.
 */
export function looksLikeEpub(head: Uint8Array): boolean {
  if (!matchesAt(head, ZIP_LOCAL_HEADER, 0) || head.length < 30) return false;
  const nameLength = (head[26] ?? 0) | ((head[27] ?? 0) << 8);
  const extraLength = (head[28] ?? 0) | ((head[29] ?? 0) << 8);
  if (nameLength !== 8 || !matchesAt(head, EPUB_MIMETYPE_ENTRY.subarray(0, 8), 30)) return false;
  return matchesAt(head, EPUB_MIMETYPE_ENTRY.subarray(8), 38 + extraLength);
}

export function rarVersion(head: Uint8Array): 4 | 5 | null {
  if (matchesAt(head, RAR5, 0)) return 5;
  if (matchesAt(head, RAR4, 0)) return 4;
  return null;
}

const SEVEN_ZIP = [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c];
export function looksLikeSevenZip(head: Uint8Array): boolean {
  return matchesAt(head, SEVEN_ZIP, 0);
}

/** A POSIX (ustar) or GNU tar header at offset 0: "ustar" at byte 257. */
const USTAR = new TextEncoder().encode("ustar");
export function looksLikeTar(head: Uint8Array): boolean {
  return matchesAt(head, USTAR, 257);
}

const XZ = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
/** An xz stream (the compression of .tar.xz / compressed .cbt files). */
export function looksLikeXz(head: Uint8Array): boolean {
  return matchesAt(head, XZ, 0);
}
