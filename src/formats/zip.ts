/**
 * A ZIP reader that never loads a whole archive: it reads the end of the file to find the
 * central directory, then reads and inflates only the entries asked for, through file slices.
 * Used by the cbz and epub plugins.
 *
 * Supported: stored (0) and deflate (8) entries, ZIP64 (EOCD locator/record and extra fields),
 * data descriptors (sizes come from the central directory), archives with leading junk
 * (self-extractor stubs, `zip64_demo.zip`), UTF-8 and legacy (CP437) entry names.
 * Refused with typed errors: encrypted entries, other compression methods, split archives,
 * anything that breaks the AnalysisLimits.
 */
import { Inflate } from "fflate";
import { type AnalysisLimits, BookAnalysisError } from "./contract.ts";
import { failure, throwIfAborted } from "./errors.ts";
import { checkDeclaredEntrySize, checkEntryCount } from "./limits.ts";

export interface ZipEntry {
  /** Entry name as stored, decoded to text, with `\` turned into `/`. Never a filesystem path. */
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly crc32: number;
  readonly isDirectory: boolean;
  /** General-purpose bit 0: the entry's data is password protected. */
  readonly encrypted: boolean;
  /** Absolute offset of the local header in the file (leading junk already accounted for). */
  readonly localHeaderOffset: number;
}

export interface ZipReadOptions {
  signal?: AbortSignal;
}

const SIG_LOCAL_HEADER = 0x04034b50;
const SIG_CENTRAL_HEADER = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const EOCD_SIZE = 22;
const ZIP64_LOCATOR_SIZE = 20;
const ZIP64_EOCD_SIZE = 56;
const MAX_COMMENT_SIZE = 0xffff;
const LOCAL_HEADER_SIZE = 30;
/** Bytes read past a local header for its file name and extra field, to read them with the data. */
const LOCAL_FIELDS_ALLOWANCE = 1024;
/** storedHeads reads two entries' heads together when no more than this lies between them... */
const COALESCE_GAP_BYTES = 128 * 1024;
/** ...and the read stays this short. */
const COALESCE_MAX_BYTES = 4 * 1024 * 1024;
const CENTRAL_HEADER_SIZE = 46;
const ZIP64_EXTRA_ID = 0x0001;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_UTF8_NAME = 0x0800;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
/** First size of an entry's output buffer; it doubles as the inflated bytes arrive. */
const INITIAL_OUTPUT_BYTES = 1024 * 1024;
/** Compressed bytes pushed into the inflater at a time: bounds the output of one push (~16 MiB). */
const INFLATE_CHUNK_BYTES = 16 * 1024;

const METHOD_NAMES: Record<number, string> = {
  9: "Deflate64",
  12: "BZIP2",
  14: "LZMA",
  93: "Zstandard",
  95: "XZ",
  98: "PPMd",
  99: "WinZip AES encryption",
};

export class ZipArchive {
  private readonly byName: Map<string, ZipEntry>;

  private constructor(
    readonly path: string,
    private readonly fileSize: number,
    readonly entries: readonly ZipEntry[],
    private readonly limits: AnalysisLimits,
  ) {
    this.byName = new Map(entries.map((entry) => [entry.name, entry]));
  }

  /** Reads the central directory. Throws a typed error for damaged or over-limit archives. */
  static async open(path: string, limits: AnalysisLimits, options: ZipReadOptions = {}): Promise<ZipArchive> {
    const file = Bun.file(path);
    const fileSize = file.size;
    const directory = await locateCentralDirectory(path, fileSize);
    checkEntryCount(limits, directory.entryCount);
    if (options.signal) throwIfAborted(options.signal);
    // A small archive's directory lies within the tail read to find its end record: no second read.
    const inTail = directory.start - directory.tailStart;
    const bytes =
      inTail >= 0 && inTail + directory.size <= directory.tail.length
        ? directory.tail.subarray(inTail, inTail + directory.size)
        : await readSlice(path, directory.start, directory.start + directory.size);
    if (bytes.length !== directory.size) throw corrupt(path, "the central directory is truncated");
    const entries = parseCentralDirectory(path, bytes, directory.entryCount, directory.bias);
    return new ZipArchive(path, fileSize, entries, limits);
  }

  /** The entry with exactly this (decoded, `/`-separated) name. */
  entry(name: string): ZipEntry | undefined {
    return this.byName.get(name);
  }

  /** The whole uncompressed content of an entry, size- and CRC-checked. */
  async read(entry: ZipEntry, options: ZipReadOptions = {}): Promise<Uint8Array> {
    const data = await this.inflate(entry, entry.uncompressedSize, options);
    if (data.length !== entry.uncompressedSize) {
      throw corrupt(this.path, `entry "${entry.name}" is truncated (${data.length} of ${entry.uncompressedSize} bytes)`);
    }
    if ((Bun.hash.crc32(data) >>> 0) !== entry.crc32) {
      throw corrupt(this.path, `entry "${entry.name}" fails its CRC check`);
    }
    return data;
  }

  /**
   * The first `byteCount` uncompressed bytes of an entry (fewer if it is shorter), inflating
   * no more than needed: enough for image headers without decoding whole pages.
   */
  async readHead(entry: ZipEntry, byteCount: number, options: ZipReadOptions = {}): Promise<Uint8Array> {
    return this.inflate(entry, Math.min(byteCount, entry.uncompressedSize), options);
  }

  /**
   * The first `byteCount` bytes of those `entries` that are stored and readable, reading the
   * heads of neighbouring entries together: one read for a run of entries less than
   * COALESCE_GAP_BYTES apart, at most COALESCE_MAX_BYTES long. Analysis reads the head of every
   * page, and a read costs tens of microseconds whatever its size, so for books of small pages
   * a few larger reads cost less than one per page. Entries left out of the map (compressed,
   * unreadable, a damaged local header) are read with readHead, which reports their error.
   */
  async storedHeads(entries: readonly ZipEntry[], byteCount: number): Promise<Map<ZipEntry, Uint8Array>> {
    const heads = new Map<ZipEntry, Uint8Array>();
    const stored = entries
      .filter((entry) => entry.method === METHOD_STORED && !entry.encrypted && entry.compressedSize === entry.uncompressedSize)
      .sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
    const spanEnd = (entry: ZipEntry) => entry.localHeaderOffset + LOCAL_HEADER_SIZE + LOCAL_FIELDS_ALLOWANCE + Math.min(byteCount, entry.uncompressedSize);
    for (let first = 0; first < stored.length; ) {
      const start = stored[first]!.localHeaderOffset;
      let end = spanEnd(stored[first]!);
      let last = first;
      while (last + 1 < stored.length) {
        const next = stored[last + 1]!;
        if (next.localHeaderOffset - end > COALESCE_GAP_BYTES || spanEnd(next) - start > COALESCE_MAX_BYTES) break;
        end = Math.max(end, spanEnd(next));
        last++;
      }
      const bytes = await readSlice(this.path, start, Math.min(this.fileSize, end));
      for (const entry of stored.slice(first, last + 1)) {
        try {
          this.assertReadable(entry);
          const at = this.dataStart(entry, bytes.subarray(entry.localHeaderOffset - start)) - start;
          const wanted = Math.min(byteCount, entry.uncompressedSize);
          if (at + wanted <= bytes.length) heads.set(entry, bytes.subarray(at, at + wanted));
        } catch {
          // Left to readHead, which throws this error where the analysis expects it.
        }
      }
      first = last + 1;
    }
    return heads;
  }

  /**
   * Where a stored (uncompressed, unencrypted) entry's bytes are in the file, or null for any
   * other entry. The bytes are not read, so no CRC is checked: the caller sends them as they are.
   */
  async storedRange(entry: ZipEntry): Promise<{ offset: number; length: number } | null> {
    if (entry.encrypted || entry.method !== METHOD_STORED || entry.compressedSize !== entry.uncompressedSize) return null;
    checkDeclaredEntrySize(this.limits, entry.name, entry.compressedSize, entry.uncompressedSize);
    return { offset: await this.dataOffset(entry), length: entry.compressedSize };
  }

  /**
   * Throws the typed error that reading the entry would raise (encrypted, unsupported method,
   * declared sizes over the limits), without reading anything.
   */
  assertReadable(entry: ZipEntry): void {
    if (entry.encrypted) {
      throw failure("parser", "encrypted", `Entry "${entry.name}" is encrypted; password-protected archives are not supported`, {
        entry: entry.name,
      });
    }
    if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATE) {
      const method = METHOD_NAMES[entry.method] ?? `method ${entry.method}`;
      throw failure(
        "parser",
        "unsupported",
        `Entry "${entry.name}" is compressed with ${method}; only stored and deflate entries are supported`,
        { entry: entry.name, method: entry.method },
      );
    }
    checkDeclaredEntrySize(this.limits, entry.name, entry.compressedSize, entry.uncompressedSize);
  }

  private async inflate(entry: ZipEntry, wanted: number, options: ZipReadOptions): Promise<Uint8Array> {
    this.assertReadable(entry);
    if (entry.method === METHOD_STORED) {
      if (entry.compressedSize !== entry.uncompressedSize) {
        throw corrupt(this.path, `stored entry "${entry.name}" has different compressed and uncompressed sizes`);
      }
      return this.readStored(entry, wanted);
    }
    return this.inflateDeflated(entry, await this.dataOffset(entry), wanted, options.signal);
  }

  /**
   * The first `wanted` bytes of a stored entry, read together with its local header when the
   * header's name and extra field fit LOCAL_FIELDS_ALLOWANCE (they nearly always do): analysis
   * reads the head of every page, and each read costs far more than its few bytes.
   */
  private async readStored(entry: ZipEntry, wanted: number): Promise<Uint8Array> {
    const headerStart = entry.localHeaderOffset;
    const end = Math.min(this.fileSize, headerStart + LOCAL_HEADER_SIZE + LOCAL_FIELDS_ALLOWANCE + wanted);
    const bytes = await readSlice(this.path, headerStart, end);
    const dataStart = this.dataStart(entry, bytes);
    const at = dataStart - headerStart;
    if (at + wanted <= bytes.length) return bytes.subarray(at, at + wanted);
    return readSlice(this.path, dataStart, dataStart + wanted);
  }

  private async inflateDeflated(entry: ZipEntry, dataStart: number, wanted: number, signal?: AbortSignal): Promise<Uint8Array> {
    // Sized by what actually comes out, not by the declared size: a header that claims 200 MiB
    // costs nothing until the bytes exist (grown by doubling, never past `wanted`).
    let output = new Uint8Array(Math.min(wanted, INITIAL_OUTPUT_BYTES));
    let produced = 0;
    let ended = false;
    const inflater = new Inflate((chunk, final) => {
      // Count every byte as it comes out: an entry that inflates beyond its declared size is
      // hostile (or damaged) and must not be allowed to fill memory.
      if (produced + chunk.length > entry.uncompressedSize) {
        throw failure(
          "parser",
          "limit_exceeded",
          `Entry "${entry.name}" inflates beyond its declared size of ${entry.uncompressedSize} bytes`,
          { entry: entry.name },
        );
      }
      if (produced < wanted) {
        const part = chunk.subarray(0, wanted - produced);
        if (produced + part.length > output.length) {
          const grown = new Uint8Array(Math.min(wanted, Math.max(output.length * 2, produced + part.length)));
          grown.set(output.subarray(0, produced));
          output = grown;
        }
        output.set(part, produced);
      }
      produced += chunk.length;
      if (final) ended = true;
    });
    const dataEnd = dataStart + entry.compressedSize;
    for (let at = dataStart; at < dataEnd && produced < wanted && !ended; at += INFLATE_CHUNK_BYTES) {
      if (signal) throwIfAborted(signal);
      const end = Math.min(at + INFLATE_CHUNK_BYTES, dataEnd);
      const compressed = await readSlice(this.path, at, end);
      if (compressed.length !== end - at) throw corrupt(this.path, `entry "${entry.name}" is truncated`);
      try {
        inflater.push(compressed, end === dataEnd);
      } catch (error) {
        if (error instanceof BookAnalysisError) throw error;
        throw corrupt(this.path, `entry "${entry.name}" cannot be inflated (${errorText(error)})`);
      }
    }
    return output.subarray(0, Math.min(produced, wanted));
  }

  private async dataOffset(entry: ZipEntry): Promise<number> {
    return this.dataStart(entry, await readSlice(this.path, entry.localHeaderOffset, entry.localHeaderOffset + LOCAL_HEADER_SIZE));
  }

  /** Where the entry's data starts, from the bytes read at its local header. */
  private dataStart(entry: ZipEntry, header: Uint8Array): number {
    const view = dataView(header);
    if (header.length < LOCAL_HEADER_SIZE || view.getUint32(0, true) !== SIG_LOCAL_HEADER) {
      throw corrupt(this.path, `the local header of entry "${entry.name}" is missing`);
    }
    const start = entry.localHeaderOffset + LOCAL_HEADER_SIZE + view.getUint16(26, true) + view.getUint16(28, true);
    if (start + entry.compressedSize > this.fileSize) throw corrupt(this.path, `entry "${entry.name}" runs past the end of the file`);
    return start;
  }
}

interface CentralDirectoryLocation {
  start: number;
  size: number;
  entryCount: number;
  /** Bytes of leading junk: every stored offset must be shifted by this much. */
  bias: number;
  /** The file's last bytes, read to find the end record, and where they start. */
  tail: Uint8Array;
  tailStart: number;
}

async function locateCentralDirectory(path: string, fileSize: number): Promise<CentralDirectoryLocation> {
  if (fileSize < EOCD_SIZE) throw corrupt(path, "the file is too short to be a ZIP archive");
  const tailStart = Math.max(0, fileSize - EOCD_SIZE - MAX_COMMENT_SIZE - ZIP64_LOCATOR_SIZE);
  const tail = await readSlice(path, tailStart, fileSize);
  const view = dataView(tail);
  let eocd = -1;
  // The EOCD may be followed by a comment of any length (even one whose declared length is
  // wrong, as in comment_garbage.zip): take the last signature in the tail.
  for (let at = tail.length - EOCD_SIZE; at >= 0; at--) {
    if (view.getUint32(at, true) === SIG_EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw corrupt(path, "no end-of-central-directory record was found");

  const diskNumber = view.getUint16(eocd + 4, true);
  const directoryDisk = view.getUint16(eocd + 6, true);
  let entryCount = view.getUint16(eocd + 10, true);
  let size = view.getUint32(eocd + 12, true);
  let offset = view.getUint32(eocd + 16, true);
  // Leading junk shifts the whole archive: the distance between where the directory should
  // end (offset + size) and where its end record really is.
  let endOfDirectory = tailStart + eocd;

  const locator = eocd - ZIP64_LOCATOR_SIZE;
  if (locator >= 0 && view.getUint32(locator, true) === SIG_ZIP64_LOCATOR) {
    const declaredRecord = safeNumber(path, view.getBigUint64(locator + 8, true));
    const record = await readZip64Record(path, declaredRecord, tailStart + locator - ZIP64_EOCD_SIZE);
    entryCount = record.entryCount;
    size = record.size;
    offset = record.offset;
    endOfDirectory = record.position;
  } else if (diskNumber !== 0 || directoryDisk !== 0) {
    throw failure("parser", "unsupported", "Split (multi-disk) ZIP archives are not supported");
  }

  const bias = endOfDirectory - (offset + size);
  if (bias < 0) throw corrupt(path, "the central directory offset points past its end record");
  return { start: offset + bias, size, entryCount, bias, tail, tailStart };
}

async function readZip64Record(
  path: string,
  declaredPosition: number,
  positionWithoutJunk: number,
): Promise<{ entryCount: number; size: number; offset: number; position: number }> {
  // The record is normally where the locator says; with leading junk it sits right before the
  // locator instead (the writer did not know about the junk).
  for (const position of [declaredPosition, positionWithoutJunk]) {
    if (position < 0) continue;
    const bytes = await readSlice(path, position, position + ZIP64_EOCD_SIZE);
    const view = dataView(bytes);
    if (bytes.length === ZIP64_EOCD_SIZE && view.getUint32(0, true) === SIG_ZIP64_EOCD) {
      if (view.getUint32(16, true) !== 0 || view.getUint32(20, true) !== 0) {
        throw failure("parser", "unsupported", "Split (multi-disk) ZIP archives are not supported");
      }
      return {
        entryCount: safeNumber(path, view.getBigUint64(32, true)),
        size: safeNumber(path, view.getBigUint64(40, true)),
        offset: safeNumber(path, view.getBigUint64(48, true)),
        position,
      };
    }
  }
  throw corrupt(path, "the ZIP64 end-of-central-directory record is missing");
}

function parseCentralDirectory(path: string, bytes: Uint8Array, entryCount: number, bias: number): ZipEntry[] {
  const view = dataView(bytes);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let index = 0; index < entryCount; index++) {
    if (at + CENTRAL_HEADER_SIZE > bytes.length || view.getUint32(at, true) !== SIG_CENTRAL_HEADER) {
      throw corrupt(path, `central directory entry ${index + 1} of ${entryCount} is damaged`);
    }
    const flags = view.getUint16(at + 8, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const nameStart = at + CENTRAL_HEADER_SIZE;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > bytes.length) throw corrupt(path, `central directory entry ${index + 1} runs past the directory`);

    const sizes = {
      compressed: view.getUint32(at + 20, true),
      uncompressed: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
    };
    applyZip64Extra(path, bytes.subarray(extraStart, extraStart + extraLength), sizes);
    const name = decodeEntryName(bytes.subarray(nameStart, extraStart), (flags & FLAG_UTF8_NAME) !== 0).replaceAll("\\", "/");
    entries.push({
      name,
      method: view.getUint16(at + 10, true),
      compressedSize: sizes.compressed,
      uncompressedSize: sizes.uncompressed,
      crc32: view.getUint32(at + 16, true),
      isDirectory: name.endsWith("/"),
      encrypted: (flags & FLAG_ENCRYPTED) !== 0,
      localHeaderOffset: sizes.offset + bias,
    });
    at = next;
  }
  return entries;
}

/** ZIP64 extra field: 8-byte values present only for the fields saturated at 0xFFFFFFFF, in this order. */
function applyZip64Extra(
  path: string,
  extra: Uint8Array,
  sizes: { compressed: number; uncompressed: number; offset: number },
): void {
  const view = dataView(extra);
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = view.getUint16(at, true);
    const length = view.getUint16(at + 2, true);
    if (id === ZIP64_EXTRA_ID) {
      let field = at + 4;
      const end = Math.min(field + length, extra.length);
      const take = (): number => {
        if (field + 8 > end) throw corrupt(path, "a ZIP64 extra field is too short");
        const value = safeNumber(path, view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (sizes.uncompressed === 0xffffffff) sizes.uncompressed = take();
      if (sizes.compressed === 0xffffffff) sizes.compressed = take();
      if (sizes.offset === 0xffffffff) sizes.offset = take();
      return;
    }
    at += 4 + length;
  }
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true });
const utf8Lenient = new TextDecoder("utf-8");
/** Code page 437, bytes 0x80-0xFF: the encoding the ZIP specification assumes without bit 11. */
export const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

/**
 * Names flagged UTF-8 are UTF-8. Unflagged names are UTF-8 too when they decode as valid
 * UTF-8 (Info-ZIP on Linux and macOS never sets the flag, and a legacy-code-page name is
 * very unlikely to be valid UTF-8); anything else is read as CP437, which cannot fail.
 */
export function decodeEntryName(raw: Uint8Array, flaggedUtf8: boolean): string {
  if (flaggedUtf8) return utf8Lenient.decode(raw);
  try {
    return utf8Strict.decode(raw);
  } catch {
    let name = "";
    for (const byte of raw) name += byte < 0x80 ? String.fromCharCode(byte) : CP437_HIGH[byte - 0x80];
    return name;
  }
}

async function readSlice(path: string, start: number, end: number): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path).slice(start, end).arrayBuffer());
}

function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function safeNumber(path: string, value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(path, "a ZIP64 size or offset is out of range");
  return Number(value);
}

function corrupt(path: string, what: string) {
  return failure("parser", "corrupt", `The ZIP archive is damaged: ${what}`, { file: path });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
