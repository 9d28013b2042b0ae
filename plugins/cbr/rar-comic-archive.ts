/**
 * A ComicArchive over a RAR file. unrar needs the whole archive in memory and cannot stop
 * inside an entry, so the file is read once per opening and the limits are checked on the
 * declared sizes BEFORE anything is extracted. Entries stored without compression (usual for
 * comics: JPEG does not compress) are read from where they lie, without unrar (CRC-checked),
 * and can be sent straight from the file (`storedRange`, zero-copy like a stored ZIP entry).
 */
import type { ComicArchive } from "../../src/formats/comic-archive.ts";
import { type AnalysisLimits, BookAnalysisError, type PluginContext } from "../../src/formats/contract.ts";
import { failure, throwIfAborted } from "../../src/formats/errors.ts";
import { IMAGE_HEADER_PROBE_BYTES, type ImageSize, probeImageSize } from "../../src/formats/images.ts";
import { checkDeclaredEntrySize, checkEntryCount } from "../../src/formats/limits.ts";
import { rarDataRanges } from "./rar-data-offsets.ts";
import { type RarMainHeader, readRarMainHeader } from "./rar-header.ts";
import { type FileHeader, multiVolumeFailure, rarFailure, withRarExtractor } from "./unrar.ts";

/** Newest unpack format the bundled unrar decodes (RAR 5.0); RAR 7 archives report more. */
const NEWEST_SUPPORTED_UNPACK_VERSION = 5.0;
const MAIN_HEADER_PROBE_BYTES = 64;

export class RarComicArchive implements ComicArchive {
  readonly fileNames: readonly string[];
  private readonly headers: Map<string, FileHeader>;

  private constructor(
    private readonly data: ArrayBuffer,
    private readonly mainHeader: RarMainHeader,
    files: FileHeader[],
    private readonly limits: AnalysisLimits,
    /** Where each entry's data starts in the file, when the header walk agreed with unrar's listing. */
    private readonly dataOffsets: Map<string, number>,
  ) {
    this.headers = new Map(files.map((file) => [file.name, file]));
    this.fileNames = files.map((file) => file.name);
  }

  static async open(path: string, ctx: PluginContext): Promise<RarComicArchive> {
    const data = await Bun.file(path).arrayBuffer();
    const mainHeader = readRarMainHeader(new Uint8Array(data, 0, Math.min(MAIN_HEADER_PROBE_BYTES, data.byteLength)));
    if (!mainHeader) throw failure("parser", "corrupt", "The RAR archive's main header is missing or damaged");
    if (mainHeader.volume) throw multiVolumeFailure();
    if (mainHeader.headersEncrypted) {
      throw failure("parser", "encrypted", "The RAR archive's file list is encrypted (password protected); encrypted archives are not supported");
    }
    throwIfAborted(ctx.signal);
    const headers = await withRarExtractor(data, (extractor) => {
      const files: FileHeader[] = [];
      for (const header of extractor.getFileList().fileHeaders) {
        files.push(header);
        checkEntryCount(ctx.limits, files.length);
      }
      return files;
    }).catch((error: unknown) => {
      throw error instanceof BookAnalysisError ? error : rarFailure(error, mainHeader);
    });
    const tooNew = headers.find((header) => Number.parseFloat(header.unpVer) > NEWEST_SUPPORTED_UNPACK_VERSION);
    if (tooNew) {
      throw failure(
        "parser",
        "unsupported",
        `Entry "${tooNew.name}" is packed with a RAR format newer than 5.0 (RAR 7 with a large dictionary); it is not supported`,
        { entry: tooNew.name },
      );
    }
    const ranges = rarDataRanges(new Uint8Array(data), mainHeader.version);
    const agrees = ranges?.length === headers.length && ranges.every((range, index) => range.packSize === headers[index]!.packSize);
    const dataOffsets = new Map(agrees ? headers.map((header, index) => [header.name, ranges[index]!.offset]) : []);
    return new RarComicArchive(data, mainHeader, headers.filter((header) => !header.flags.directory), ctx.limits, dataOffsets);
  }

  /** Memory held while open: the whole file, and the entries' headers (roughly). */
  get approximateBytes(): number {
    return this.data.byteLength + this.fileNames.length * 256;
  }

  uncompressedSize(name: string): number | null {
    return this.headers.get(name)?.unpSize ?? null;
  }

  assertReadable(name: string): void {
    const header = this.header(name);
    if (header.flags.encrypted) {
      throw failure("parser", "encrypted", `Entry "${name}" is encrypted; password-protected archives are not supported`, { entry: name });
    }
    // In a solid archive an entry's packed size is not its own compressed data, so the ratio
    // says nothing; the declared uncompressed size still bounds what unrar will produce.
    const compressedSize = header.flags.solid ? header.unpSize : header.packSize;
    checkDeclaredEntrySize(this.limits, name, compressedSize, header.unpSize);
  }

  async probePageSizes(names: readonly string[], ctx: PluginContext): Promise<Map<string, ImageSize | null>> {
    throwIfAborted(ctx.signal);
    // One pass over the archive (a solid archive would otherwise be unpacked once per page),
    // keeping only the first bytes of each page.
    const headBytes = IMAGE_HEADER_PROBE_BYTES[IMAGE_HEADER_PROBE_BYTES.length - 1] ?? 0;
    const heads = await this.extract(names, (bytes) => bytes.slice(0, headBytes));
    const sizes = new Map<string, ImageSize | null>();
    for (const name of names) {
      const head = heads.get(name);
      sizes.set(name, head ? await probeImageSize(async (byteCount) => head.subarray(0, byteCount)) : null);
    }
    return sizes;
  }

  async storedRange(name: string): Promise<{ offset: number; length: number } | null> {
    const header = this.header(name);
    const offset = this.dataOffsets.get(name);
    if (offset === undefined || header.method !== "Storing" || header.flags.encrypted || header.packSize !== header.unpSize) return null;
    if (offset + header.packSize > this.data.byteLength) return null;
    checkDeclaredEntrySize(this.limits, name, header.packSize, header.unpSize);
    return { offset, length: header.packSize };
  }

  async readHead(name: string, byteCount: number, ctx: PluginContext): Promise<Uint8Array> {
    const range = await this.storedRange(name);
    if (range) return new Uint8Array(this.data, range.offset, Math.min(byteCount, range.length));
    return (await this.read(name, ctx)).subarray(0, byteCount);
  }

  async read(name: string, ctx: PluginContext): Promise<Uint8Array> {
    throwIfAborted(ctx.signal);
    const range = await this.storedRange(name);
    if (range) {
      const stored = new Uint8Array(this.data, range.offset, range.length);
      // A damaged entry goes through unrar, which says what is wrong with it.
      if ((Bun.hash.crc32(stored) >>> 0) === this.header(name).crc >>> 0) return stored;
    }
    const bytes = (await this.extract([name], (data) => data)).get(name);
    if (!bytes) throw failure("page_extraction", "corrupt", `Entry "${name}" could not be extracted from the RAR archive`, { entry: name });
    return bytes;
  }

  private async extract(names: readonly string[], keep: (bytes: Uint8Array) => Uint8Array): Promise<Map<string, Uint8Array>> {
    return withRarExtractor(this.data, (extractor) => {
      const extracted = new Map<string, Uint8Array>();
      for (const file of extractor.extract({ files: [...names] }).files) {
        if (file.extraction) extracted.set(file.fileHeader.name, keep(file.extraction));
      }
      return extracted;
    }).catch((error: unknown) => {
      throw rarFailure(error, this.mainHeader);
    });
  }

  private header(name: string): FileHeader {
    const header = this.headers.get(name);
    if (!header) throw failure("page_extraction", "not_found", `Entry "${name}" is not in the archive`, { entry: name });
    return header;
  }
}
