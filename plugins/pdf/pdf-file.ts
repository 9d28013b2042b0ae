/**
 * Random access to the objects of a PDF file through its cross-reference data (classic xref
 * tables and xref streams, following /Prev for incremental updates, and object streams), read
 * from the file on demand so that one page costs a few small reads, not the whole file.
 *
 * It is deliberately strict: a damaged file (bad offsets, no startxref) throws, and the caller
 * falls back to pdf.js, which repairs what it can. It does not decrypt: callers check the
 * trailer for /Encrypt.
 */
import { open, type FileHandle } from "node:fs/promises";
import { inflateSync } from "node:zlib";
import {
  EndOfDataError,
  PdfKeyword,
  PdfLexer,
  PdfRef,
  PdfSyntaxError,
  isDict,
  isNamed,
  latin1,
  type PdfDict,
  type PdfValue,
} from "./pdf-syntax.ts";

/** A stream object: its dictionary and where its raw data starts in the file. */
export interface PdfStream {
  dict: PdfDict;
  dataOffset: number;
}

type XrefEntry = { inStream: false; offset: number } | { inStream: true; streamNum: number; index: number };

/** Object dictionaries are small; a window this big is read first and doubled when too short. */
const FIRST_WINDOW = 8 * 1024;
const MAX_WINDOW = 16 * 1024 * 1024;
/** Largest decoded xref or object stream accepted. */
const MAX_STRUCTURE_STREAM = 16 * 1024 * 1024;
const MAX_XREF_SECTIONS = 1000;

export class PdfFile {
  private readonly xref = new Map<number, XrefEntry>();
  private readonly objectCache = new Map<number, PdfValue | PdfStream>();
  private readonly objectStreamCache = new Map<number, { bytes: Uint8Array; offsets: Map<number, number> }>();
  /** The newest trailer (or xref stream dictionary). */
  trailer: PdfDict = new Map();

  private constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** Opens the file and reads its cross-reference data; `use` runs with the file, which is then closed. */
  static async with<T>(path: string, use: (file: PdfFile) => Promise<T>): Promise<T> {
    const handle = await open(path, "r");
    try {
      const file = new PdfFile(handle, (await handle.stat()).size);
      await file.readCrossReferences();
      return await use(file);
    } finally {
      await handle.close();
    }
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const bytes = new Uint8Array(Math.max(0, Math.min(length, this.size - offset)));
    const { bytesRead } = await this.handle.read(bytes, 0, bytes.length, offset);
    return bytes.subarray(0, bytesRead);
  }

  /** Follows a reference (any depth of indirection); other values are returned as they are. */
  async resolve(value: PdfValue | undefined): Promise<PdfValue | PdfStream | undefined> {
    for (let hops = 0; value instanceof PdfRef; hops++) {
      if (hops > 32) throw new PdfSyntaxError("reference chain too long");
      const target = await this.object(value.num);
      if (isStream(target)) return target;
      value = target;
    }
    return value;
  }

  async resolveDict(value: PdfValue | undefined): Promise<PdfDict | undefined> {
    const resolved = await this.resolve(value);
    return isDict(resolved) ? resolved : undefined;
  }

  /** The raw (still encoded) data of a stream. */
  async rawStreamData(stream: PdfStream, maxLength: number): Promise<Uint8Array> {
    const length = await this.resolve(stream.dict.get("Length"));
    if (typeof length !== "number" || !Number.isInteger(length) || length < 0 || stream.dataOffset + length > this.size) {
      throw new PdfSyntaxError("stream /Length missing or beyond the end of the file");
    }
    if (length > maxLength) throw new PdfSyntaxError("stream larger than allowed");
    return this.read(stream.dataOffset, length);
  }

  /** Stream data with FlateDecode (and a PNG predictor) undone; other filters are not supported. */
  async decodedStreamData(stream: PdfStream, maxLength: number): Promise<Uint8Array> {
    const raw = await this.rawStreamData(stream, maxLength);
    const filters = [await this.resolve(stream.dict.get("Filter"))].flat();
    if (filters.length === 0 || filters[0] === undefined || filters[0] === null) return raw;
    if (filters.length !== 1 || !isNamed(filters[0], "FlateDecode")) throw new PdfSyntaxError("unsupported stream filter");
    const inflated = new Uint8Array(inflateSync(raw, { maxOutputLength: maxLength }));
    const params = await this.resolveDict(stream.dict.get("DecodeParms"));
    return params ? undoPngPredictor(inflated, params) : inflated;
  }

  private async object(num: number): Promise<PdfValue | PdfStream> {
    const cached = this.objectCache.get(num);
    if (cached !== undefined) return cached;
    const entry = this.xref.get(num);
    let value: PdfValue | PdfStream = null;
    if (entry && !entry.inStream) {
      value = await this.objectAt(entry.offset, num);
    } else if (entry?.inStream) {
      value = await this.objectFromStream(entry.streamNum, entry.index, num);
    }
    this.objectCache.set(num, value);
    return value;
  }

  /** Parses "num gen obj value [stream]" at `offset`, reading more of the file while needed. */
  private async objectAt(offset: number, expectedNum: number): Promise<PdfValue | PdfStream> {
    return this.withWindow(offset, (lexer) => {
      const num = lexer.expectValue();
      const gen = lexer.expectValue();
      const keyword = lexer.expectValue();
      if (num !== expectedNum || typeof gen !== "number" || !isKeyword(keyword, "obj")) {
        throw new PdfSyntaxError(`object ${expectedNum} is not at its xref offset`);
      }
      const value = lexer.expectValue();
      if (!isDict(value) || !isKeyword(lexer.expectValue(), "stream")) return value;
      // The data starts after the end-of-line that follows "stream" (CRLF or LF).
      let dataStart = lexer.position;
      if (lexer.bytes[dataStart] === 0x0d) dataStart++;
      if (lexer.bytes[dataStart] === 0x0a) dataStart++;
      return { dict: value, dataOffset: offset + dataStart };
    });
  }

  private async withWindow<T>(offset: number, parse: (lexer: PdfLexer) => T): Promise<T> {
    for (let window = FIRST_WINDOW; ; window *= 2) {
      const bytes = await this.read(offset, window);
      try {
        return parse(new PdfLexer(bytes));
      } catch (error) {
        const more = error instanceof EndOfDataError && offset + bytes.length < this.size && window < MAX_WINDOW;
        if (!more) throw error;
      }
    }
  }

  private async objectFromStream(streamNum: number, index: number, num: number): Promise<PdfValue> {
    let objectStream = this.objectStreamCache.get(streamNum);
    if (!objectStream) {
      const stream = await this.object(streamNum);
      if (!isStream(stream) || !isNamed(stream.dict.get("Type"), "ObjStm")) throw new PdfSyntaxError("bad object stream");
      const bytes = await this.decodedStreamData(stream, MAX_STRUCTURE_STREAM);
      const count = await this.resolve(stream.dict.get("N"));
      const first = await this.resolve(stream.dict.get("First"));
      if (typeof count !== "number" || typeof first !== "number") throw new PdfSyntaxError("bad object stream header");
      const header = new PdfLexer(bytes.subarray(0, first), 0, true);
      const offsets = new Map<number, number>();
      for (let i = 0; i < count; i++) {
        const objectNum = header.next();
        const objectOffset = header.next();
        if (typeof objectNum !== "number" || typeof objectOffset !== "number") break;
        offsets.set(objectNum, first + objectOffset);
      }
      objectStream = { bytes, offsets };
      this.objectStreamCache.set(streamNum, objectStream);
    }
    const offset = objectStream.offsets.get(num);
    if (offset === undefined) throw new PdfSyntaxError(`object ${num} is not in object stream ${streamNum} (index ${index})`);
    return new PdfLexer(objectStream.bytes, offset, true).expectValue();
  }

  /** Reads every xref section from the newest (at startxref) back along /Prev; newer entries win. */
  private async readCrossReferences(): Promise<void> {
    const tail = latin1(await this.read(Math.max(0, this.size - 1024), 1024));
    const match = tail.slice(tail.lastIndexOf("startxref")).match(/^startxref\s+(\d+)/);
    if (!match) throw new PdfSyntaxError("no startxref");
    let offset: number | undefined = Number(match[1]);
    const seen = new Set<number>();
    while (offset !== undefined) {
      if (seen.has(offset) || seen.size >= MAX_XREF_SECTIONS || offset >= this.size) throw new PdfSyntaxError("bad xref chain");
      seen.add(offset);
      const sectionTrailer: PdfDict = await this.readXrefSection(offset);
      if (seen.size === 1) this.trailer = sectionTrailer;
      // Hybrid files: a classic table whose trailer points at an xref stream with more entries.
      const hybridStream = sectionTrailer.get("XRefStm");
      if (typeof hybridStream === "number" && !seen.has(hybridStream)) {
        seen.add(hybridStream);
        await this.readXrefSection(hybridStream);
      }
      const previous = sectionTrailer.get("Prev");
      offset = typeof previous === "number" ? previous : undefined;
    }
  }

  private async readXrefSection(offset: number): Promise<PdfDict> {
    const head = latin1(await this.read(offset, 4));
    return head === "xref" ? this.readXrefTable(offset) : this.readXrefStream(offset);
  }

  private readXrefTable(offset: number): Promise<PdfDict> {
    return this.withWindow(offset + 4, (lexer) => {
      const entries: [number, XrefEntry][] = [];
      for (;;) {
        let first = lexer.expectValue();
        if (isKeyword(first, "trailer")) break;
        const count = lexer.expectValue();
        if (typeof first !== "number" || typeof count !== "number") throw new PdfSyntaxError("bad xref table");
        for (let i = 0; i < count; i++) {
          const entryOffset = lexer.expectValue();
          const generation = lexer.expectValue();
          const kind = lexer.expectValue();
          if (typeof entryOffset !== "number" || typeof generation !== "number") throw new PdfSyntaxError("bad xref entry");
          if (isKeyword(kind, "n")) entries.push([first + i, { inStream: false, offset: entryOffset }]);
          else if (!isKeyword(kind, "f")) throw new PdfSyntaxError("bad xref entry");
          // A known writer bug (pdf.js corrects it too): "1 N" followed by object 0's free entry.
          else if (i === 0 && first === 1) first = 0;
        }
      }
      const trailer = lexer.expectValue();
      if (!isDict(trailer)) throw new PdfSyntaxError("bad trailer");
      this.addEntries(entries);
      return trailer;
    });
  }

  private async readXrefStream(offset: number): Promise<PdfDict> {
    const stream = await this.objectAt(offset, await this.objectNumberAt(offset));
    if (!isStream(stream) || !isNamed(stream.dict.get("Type"), "XRef")) throw new PdfSyntaxError("startxref points at no xref");
    const { dict } = stream;
    const widths = dict.get("W");
    const size = dict.get("Size");
    if (!Array.isArray(widths) || widths.length !== 3 || !widths.every((w) => typeof w === "number" && w >= 0 && w <= 8)) {
      throw new PdfSyntaxError("bad xref stream /W");
    }
    const [typeWidth, field2Width, field3Width] = widths as [number, number, number];
    const index = dict.get("Index") ?? [0, size ?? 0];
    if (!Array.isArray(index)) throw new PdfSyntaxError("bad xref stream /Index");
    const data = await this.decodedStreamData(stream, MAX_STRUCTURE_STREAM);
    const rowLength = typeWidth + field2Width + field3Width;
    const entries: [number, XrefEntry][] = [];
    let row = 0;
    for (let i = 0; i + 1 < index.length; i += 2) {
      const first = index[i];
      const count = index[i + 1];
      if (typeof first !== "number" || typeof count !== "number") throw new PdfSyntaxError("bad xref stream /Index");
      for (let n = 0; n < count && (row + 1) * rowLength <= data.length; n++, row++) {
        if (entries.length > this.size) throw new PdfSyntaxError("more cross-reference entries than the file has bytes");
        const at = row * rowLength;
        const type = typeWidth === 0 ? 1 : readNumber(data, at, typeWidth);
        const field2 = readNumber(data, at + typeWidth, field2Width);
        const field3 = readNumber(data, at + typeWidth + field2Width, field3Width);
        if (type === 1) entries.push([first + n, { inStream: false, offset: field2 }]);
        else if (type === 2) entries.push([first + n, { inStream: true, streamNum: field2, index: field3 }]);
      }
    }
    this.addEntries(entries);
    return dict;
  }

  private async objectNumberAt(offset: number): Promise<number> {
    const num = new PdfLexer(await this.read(offset, 32)).next();
    if (typeof num !== "number") throw new PdfSyntaxError("startxref points at no object");
    return num;
  }

  /** Sections are read newest first, so an entry already known is newer and stays. */
  private addEntries(entries: [number, XrefEntry][]): void {
    for (const [num, entry] of entries) if (!this.xref.has(num)) this.xref.set(num, entry);
    // No real file holds more objects than bytes: a small file claiming millions (a crafted,
    // highly compressed xref stream) is refused before it costs time and memory.
    if (this.xref.size > this.size) throw new PdfSyntaxError("more cross-reference entries than the file has bytes");
  }
}

export function isStream(value: PdfValue | PdfStream | undefined): value is PdfStream {
  return typeof value === "object" && value !== null && "dataOffset" in value;
}

function isKeyword(value: PdfValue | undefined, word: string): boolean {
  return value instanceof PdfKeyword && value.word === word;
}

function readNumber(data: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + data[at + i]!;
  return value;
}

/** Undoes the PNG predictors (/Predictor 10-15) that xref and object streams commonly use. */
function undoPngPredictor(data: Uint8Array, params: PdfDict): Uint8Array {
  const predictor = params.get("Predictor") ?? 1;
  if (predictor === 1) return data;
  if (typeof predictor !== "number" || predictor < 10) throw new PdfSyntaxError("unsupported predictor");
  const colors = params.get("Colors") ?? 1;
  const bitsPerComponent = params.get("BitsPerComponent") ?? 8;
  const columns = params.get("Columns") ?? 1;
  if (typeof colors !== "number" || typeof bitsPerComponent !== "number" || typeof columns !== "number") {
    throw new PdfSyntaxError("bad predictor parameters");
  }
  const pixelBytes = Math.max(1, Math.ceil((colors * bitsPerComponent) / 8));
  const rowBytes = Math.ceil((colors * bitsPerComponent * columns) / 8);
  const rows = Math.floor(data.length / (rowBytes + 1));
  const out = new Uint8Array(rows * rowBytes);
  for (let r = 0; r < rows; r++) {
    const filter = data[r * (rowBytes + 1)]!;
    const source = r * (rowBytes + 1) + 1;
    const target = r * rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= pixelBytes ? out[target + i - pixelBytes]! : 0;
      const up = r > 0 ? out[target + i - rowBytes]! : 0;
      const upLeft = r > 0 && i >= pixelBytes ? out[target + i - rowBytes - pixelBytes]! : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) predicted = paeth(left, up, upLeft);
      out[target + i] = (data[source + i]! + predicted) & 0xff;
    }
  }
  return out;
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}
