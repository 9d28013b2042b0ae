/**
 * A small parser for PDF object syntax (ISO 32000 section 7.3), used by the JPEG fast path to
 * read a page's dictionaries and content stream without pdf.js (pdf.js decodes every image
 * while it reads a page, which is the cost the fast path avoids). It parses what that needs:
 * numbers, names, strings, arrays, dictionaries, references, and bare keywords (content-stream
 * operators, `obj`, `stream`, ...). It never decodes stream data.
 */

export class PdfName {
  constructor(readonly name: string) {}
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A bare word: a content-stream operator or a structural keyword. */
export class PdfKeyword {
  constructor(readonly word: string) {}
}

export type PdfDict = Map<string, PdfValue>;
export type PdfValue = null | boolean | number | string | PdfName | PdfRef | PdfKeyword | PdfValue[] | PdfDict;

/** Thrown when a value runs past the bytes given; the caller may retry with more bytes. */
export class EndOfDataError extends Error {
  constructor() {
    super("PDF object runs past the bytes read");
  }
}

export class PdfSyntaxError extends Error {}

const MAX_NESTING = 64;

const enum Byte {
  Percent = 0x25,
  LeftParen = 0x28,
  RightParen = 0x29,
  Slash = 0x2f,
  Less = 0x3c,
  Greater = 0x3e,
  LeftBracket = 0x5b,
  RightBracket = 0x5d,
  Backslash = 0x5c,
  LeftBrace = 0x7b,
  RightBrace = 0x7d,
  Newline = 0x0a,
  Return = 0x0d,
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function isDelimiter(byte: number): boolean {
  return (
    byte === Byte.LeftParen ||
    byte === Byte.RightParen ||
    byte === Byte.Less ||
    byte === Byte.Greater ||
    byte === Byte.LeftBracket ||
    byte === Byte.RightBracket ||
    byte === Byte.LeftBrace ||
    byte === Byte.RightBrace ||
    byte === Byte.Slash ||
    byte === Byte.Percent
  );
}

/**
 * Reads PDF values one after another from `bytes`, starting at `position`. `complete` says
 * that the data ends with `bytes` (a whole content stream): a word may then end at the last
 * byte. Otherwise `bytes` is a window of a file, and running out of it throws EndOfDataError.
 */
export class PdfLexer {
  constructor(
    readonly bytes: Uint8Array,
    public position = 0,
    private readonly complete = false,
  ) {}

  /** Skips whitespace and comments; false at the end of the bytes. */
  skipWhitespace(): boolean {
    const { bytes } = this;
    while (this.position < bytes.length) {
      const byte = bytes[this.position]!;
      if (byte === Byte.Percent) {
        while (this.position < bytes.length && bytes[this.position] !== Byte.Newline && bytes[this.position] !== Byte.Return) {
          this.position++;
        }
      } else if (isWhitespace(byte)) {
        this.position++;
      } else {
        return true;
      }
    }
    return false;
  }

  /** The next value, or undefined at the end of the bytes. `N G R` is read as one reference. */
  next(): PdfValue | undefined {
    if (!this.skipWhitespace()) return undefined;
    return this.value(0);
  }

  /** Like next(), but running out of bytes is an error (inside an object it means "read more"). */
  expectValue(): PdfValue {
    const value = this.next();
    if (value === undefined) throw new EndOfDataError();
    return value;
  }

  private value(depth: number): PdfValue {
    if (depth > MAX_NESTING) throw new PdfSyntaxError("PDF objects nested too deeply");
    if (!this.skipWhitespace()) throw new EndOfDataError();
    const byte = this.bytes[this.position]!;
    switch (byte) {
      case Byte.Slash:
        return this.name();
      case Byte.LeftParen:
        return this.literalString();
      case Byte.LeftBracket:
        return this.array(depth);
      case Byte.Less:
        return this.bytes[this.position + 1] === Byte.Less ? this.dictionary(depth) : this.hexString();
      default: {
        const word = this.word();
        const number = Number(word);
        if (word !== "" && Number.isFinite(number) && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
          return Number.isInteger(number) && /^\d+$/.test(word) ? this.maybeReference(number) : number;
        }
        if (word === "true") return true;
        if (word === "false") return false;
        if (word === "null") return null;
        if (word === "") throw new PdfSyntaxError(`unexpected byte 0x${byte.toString(16)} in a PDF object`);
        return new PdfKeyword(word);
      }
    }
  }

  /** After an unsigned integer: `gen R` makes it a reference; otherwise rewind. */
  private maybeReference(num: number): PdfValue {
    const start = this.position;
    if (this.skipWhitespace()) {
      const gen = this.word();
      if (/^\d+$/.test(gen) && this.skipWhitespace() && this.word() === "R") return new PdfRef(num, Number(gen));
    }
    if (this.position >= this.bytes.length && !this.complete) throw new EndOfDataError();
    this.position = start;
    return num;
  }

  /** Regular characters up to the next whitespace or delimiter. */
  private word(): string {
    const { bytes } = this;
    const start = this.position;
    while (this.position < bytes.length && !isWhitespace(bytes[this.position]!) && !isDelimiter(bytes[this.position]!)) {
      this.position++;
    }
    if (this.position >= bytes.length && !this.complete) throw new EndOfDataError();
    return latin1(bytes.subarray(start, this.position));
  }

  private name(): PdfName {
    this.position++;
    const raw = this.word();
    return new PdfName(raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
  }

  /** A (string) with balanced parentheses and escapes, returned as Latin-1 text. */
  private literalString(): string {
    const { bytes } = this;
    this.position++;
    const out: number[] = [];
    let depth = 1;
    while (this.position < bytes.length) {
      const byte = bytes[this.position++]!;
      if (byte === Byte.Backslash) {
        const escaped = bytes[this.position++];
        if (escaped === undefined) break;
        const simple: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };
        if (escaped >= 0x30 && escaped <= 0x37) {
          let code = escaped - 0x30;
          for (let i = 0; i < 2 && bytes[this.position]! >= 0x30 && bytes[this.position]! <= 0x37; i++) {
            code = code * 8 + bytes[this.position++]! - 0x30;
          }
          out.push(code & 0xff);
        } else if (escaped === Byte.Return) {
          if (bytes[this.position] === Byte.Newline) this.position++;
        } else if (escaped !== Byte.Newline) {
          out.push(simple[escaped] ?? escaped);
        }
      } else if (byte === Byte.LeftParen) {
        depth++;
        out.push(byte);
      } else if (byte === Byte.RightParen) {
        if (--depth === 0) return latin1(Uint8Array.from(out));
        out.push(byte);
      } else {
        out.push(byte);
      }
    }
    throw new EndOfDataError();
  }

  private hexString(): string {
    const end = this.bytes.indexOf(Byte.Greater, this.position);
    if (end < 0) throw new EndOfDataError();
    const hex = latin1(this.bytes.subarray(this.position + 1, end)).replace(/[^0-9a-fA-F]/g, "");
    this.position = end + 1;
    let text = "";
    for (let i = 0; i < hex.length; i += 2) text += String.fromCharCode(parseInt(hex.slice(i, i + 2).padEnd(2, "0"), 16));
    return text;
  }

  private array(depth: number): PdfValue[] {
    this.position++;
    const items: PdfValue[] = [];
    for (;;) {
      if (!this.skipWhitespace()) throw new EndOfDataError();
      if (this.bytes[this.position] === Byte.RightBracket) {
        this.position++;
        return items;
      }
      items.push(this.value(depth + 1));
    }
  }

  private dictionary(depth: number): PdfDict {
    this.position += 2;
    const dict: PdfDict = new Map();
    for (;;) {
      if (!this.skipWhitespace()) throw new EndOfDataError();
      if (this.bytes[this.position] === Byte.Greater) {
        if (this.bytes[this.position + 1] === undefined) throw new EndOfDataError();
        this.position += 2;
        return dict;
      }
      const key = this.value(depth + 1);
      if (!(key instanceof PdfName)) throw new PdfSyntaxError("a PDF dictionary key is not a name");
      dict.set(key.name, this.value(depth + 1));
    }
  }
}

/** Bytes as ISO-8859-1 text (TextDecoder's "latin1" is windows-1252, which remaps 0x80-0x9f). */
export function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

export function isDict(value: unknown): value is PdfDict {
  return value instanceof Map;
}

export function isNamed(value: unknown, name: string): boolean {
  return value instanceof PdfName && value.name === name;
}
