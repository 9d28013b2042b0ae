/** A ComicArchive over the shared ZIP reader: page sizes come from the first inflated bytes only. */
import type { ComicArchive } from "../../src/formats/comic-archive.ts";
import type { PluginContext } from "../../src/formats/contract.ts";
import { failure, throwIfAborted } from "../../src/formats/errors.ts";
import { IMAGE_HEADER_PROBE_BYTES, type ImageSize, probeImageSize } from "../../src/formats/images.ts";
import { ZipArchive, type ZipEntry } from "../../src/formats/zip.ts";

/** A parsed entry (name, sizes, offsets) in memory, roughly. */
const ENTRY_BYTES = 256;

export class ZipComicArchive implements ComicArchive {
  readonly fileNames: readonly string[];

  private constructor(private readonly zip: ZipArchive) {
    // A name listed twice (crafted archives) is one entry: ZipArchive.entry() answers the last.
    this.fileNames = [...new Set(zip.entries.filter((entry) => !entry.isDirectory).map((entry) => entry.name))];
  }

  static async open(path: string, ctx: PluginContext): Promise<ZipComicArchive> {
    return new ZipComicArchive(await ZipArchive.open(path, ctx.limits, { signal: ctx.signal }));
  }

  /** Memory held while open: the parsed central directory. */
  get approximateBytes(): number {
    return this.zip.entries.length * ENTRY_BYTES;
  }

  uncompressedSize(name: string): number | null {
    return this.zip.entry(name)?.uncompressedSize ?? null;
  }

  assertReadable(name: string): void {
    this.zip.assertReadable(this.entryNamed(name));
  }

  async probePageSizes(names: readonly string[], ctx: PluginContext): Promise<Map<string, ImageSize | null>> {
    const sizes = new Map<string, ImageSize | null>();
    const [firstProbe] = IMAGE_HEADER_PROBE_BYTES;
    const heads = await this.zip.storedHeads(names.map((name) => this.entryNamed(name)), firstProbe);
    for (const name of names) {
      throwIfAborted(ctx.signal);
      const entry = this.entryNamed(name);
      const head = heads.get(entry);
      sizes.set(
        name,
        await probeImageSize(async (byteCount) =>
          head && byteCount === firstProbe ? head : this.zip.readHead(entry, byteCount, { signal: ctx.signal }),
        ),
      );
    }
    return sizes;
  }

  read(name: string, ctx: PluginContext): Promise<Uint8Array> {
    return this.zip.read(this.entryNamed(name), { signal: ctx.signal });
  }

  storedRange(name: string): Promise<{ offset: number; length: number } | null> {
    return this.zip.storedRange(this.entryNamed(name));
  }

  readHead(name: string, byteCount: number, ctx: PluginContext): Promise<Uint8Array> {
    return this.zip.readHead(this.entryNamed(name), byteCount, { signal: ctx.signal });
  }

  private entryNamed(name: string): ZipEntry {
    const entry = this.zip.entry(name);
    if (!entry) throw failure("page_extraction", "not_found", `Entry "${name}" is not in the archive`, { entry: name });
    return entry;
  }
}
