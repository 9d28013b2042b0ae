/** An opened EPUB: its ZIP, its package, and how spine items map to pages and images. */
import type { PluginContext } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { attribute, decodeXmlBytes, descendantElements, parseXml, type XmlElement } from "../../src/formats/xml.ts";
import { ZipArchive, type ZipEntry } from "../../src/formats/zip.ts";
import { resolveHref } from "./book-paths.ts";
import { mediaTypeForPath } from "../../src/formats/resource-types.ts";
import { type EpubPackage, type ManifestItem, readPackage, rootfilePath } from "./opf.ts";

export interface EpubPage {
  /** Entry name of what the page shows: an image, or a document when it shows no single image. */
  path: string;
  mediaType: string;
}

const CONTAINER_PATH = "META-INF/container.xml";
/** A rough size of one parsed ZIP entry or manifest item in memory (names, offsets, object overhead). */
const OPEN_ENTRY_BYTES = 512;
const ENCRYPTION_PATH = "META-INF/encryption.xml";
/** Font obfuscation (IDPF, Adobe) is not DRM: the text stays readable. */
const FONT_OBFUSCATION_ALGORITHMS = new Set(["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"]);

export class EpubBook {
  private constructor(
    private readonly zip: ZipArchive,
    readonly pkg: EpubPackage,
    private readonly ctx: PluginContext,
  ) {}

  static async open(path: string, ctx: PluginContext): Promise<EpubBook> {
    const zip = await ZipArchive.open(path, ctx.limits, { signal: ctx.signal });
    const readXml = async (entry: ZipEntry) => parseXml(decodeXmlBytes(await zip.read(entry, { signal: ctx.signal })), entry.name);
    const containerEntry = zip.entry(CONTAINER_PATH);
    if (!containerEntry) throw failure("parser", "corrupt", `Not a valid EPUB: ${CONTAINER_PATH} is missing`);
    const opfPath = rootfilePath(await readXml(containerEntry));
    const opfEntry = zip.entry(opfPath);
    if (!opfEntry) throw failure("parser", "corrupt", `Not a valid EPUB: the package file "${opfPath}" named by ${CONTAINER_PATH} is missing`);
    const book = new EpubBook(zip, readPackage(await readXml(opfEntry), opfPath), ctx);
    const encryption = zip.entry(ENCRYPTION_PATH);
    if (encryption) book.assertNotDrmProtected(await readXml(encryption));
    return book;
  }

  /**
   * This opened book for another call: its ZIP and package as they are, read under `ctx` (its
   * signal) from now on. The reader's resource requests share one opening (see index.ts).
   */
  during(ctx: PluginContext): EpubBook {
    return new EpubBook(this.zip, this.pkg, ctx);
  }

  /** Memory held while open: the parsed central directory and package. */
  get approximateBytes(): number {
    return (this.zip.entries.length + this.pkg.manifestByPath.size) * OPEN_ENTRY_BYTES;
  }

  /** Spine items that are in the ZIP, in reading order. */
  get spine(): ManifestItem[] {
    return this.pkg.spine.filter((item) => this.zip.entry(item.path) !== undefined);
  }

  /**
   * Fixed-layout books (manga, comics) show one image per spine item: the item itself when it
   * is an image (raster or SVG), else the first image its XHTML references, else the document.
   * Reflowable books have no page images: each spine document is a page (see index.ts).
   */
  async page(item: ManifestItem): Promise<EpubPage> {
    if (this.pkg.fixedLayout && !item.mediaType.startsWith("image/")) {
      const image = await this.firstImageIn(item.path);
      if (image) return { path: image, mediaType: this.mediaTypeOf(image) };
    }
    return { path: item.path, mediaType: item.mediaType };
  }

  /** The image to make a thumbnail from: the declared cover, else the first page's image. */
  async coverImage(): Promise<string | null> {
    const cover = this.pkg.cover;
    if (cover && this.zip.entry(cover)) return this.mediaTypeOf(cover).startsWith("image/") ? cover : this.firstImageIn(cover);
    const first = this.spine[0];
    if (!first) return null;
    return first.mediaType.startsWith("image/") ? first.path : this.firstImageIn(first.path);
  }

  /** The first <img src> or SVG <image href> of a document, when that image is in the book. */
  async firstImageIn(documentPath: string): Promise<string | null> {
    const entry = this.zip.entry(documentPath);
    if (!entry) return null;
    let document;
    try {
      document = parseXml(decodeXmlBytes(await this.read(documentPath)), documentPath);
    } catch {
      return null; // a damaged page document just has no image to offer
    }
    const references = [
      ...descendantElements(document, "img").map((img) => attribute(img, "src")),
      ...descendantElements(document, "image").map((image) => attribute(image, "href")),
    ];
    for (const reference of references) {
      const path = reference ? resolveHref(documentPath, reference) : null;
      if (path && this.zip.entry(path) && this.mediaTypeOf(path).startsWith("image/")) return path;
    }
    return null;
  }

  has(path: string): boolean {
    const entry = this.zip.entry(path);
    return entry !== undefined && !entry.isDirectory;
  }

  uncompressedSize(path: string): number | null {
    return this.zip.entry(path)?.uncompressedSize ?? null;
  }

  async read(path: string): Promise<Uint8Array> {
    const entry = this.zip.entry(path);
    if (!entry || entry.isDirectory) throw failure("other", "not_found", `"${path}" is not in the book`, { resource: path });
    return this.zip.read(entry, { signal: this.ctx.signal });
  }

  async readHead(path: string, byteCount: number): Promise<Uint8Array> {
    const entry = this.zip.entry(path);
    if (!entry) throw failure("other", "not_found", `"${path}" is not in the book`, { resource: path });
    return this.zip.readHead(entry, byteCount, { signal: this.ctx.signal });
  }

  /** Manifest media type, else one guessed from the extension (files missing from the manifest). */
  mediaTypeOf(path: string): string {
    return this.pkg.manifestByPath.get(path)?.mediaType ?? mediaTypeForPath(path);
  }

  /** Real DRM (not font obfuscation) on a spine document makes the book unreadable. */
  private assertNotDrmProtected(encryption: XmlElement): void {
    const spinePaths = new Set(this.pkg.spine.map((item) => item.path));
    for (const data of descendantElements(encryption, "EncryptedData")) {
      const algorithm = attribute(descendantElements(data, "EncryptionMethod")[0] ?? data, "Algorithm") ?? "";
      const uri = attribute(descendantElements(data, "CipherReference")[0] ?? data, "URI") ?? "";
      const path = resolveHref("", uri);
      if (!FONT_OBFUSCATION_ALGORITHMS.has(algorithm) && path && spinePaths.has(path)) {
        throw failure("parser", "encrypted", "The EPUB is DRM-protected (its content documents are encrypted)", { algorithm });
      }
    }
  }
}
