/**
 * A ComicArchive over a tar file. A plain tar is indexed once per operation and its entries
 * are read at their offsets (stored pages, so the server can send them as file ranges). A
 * compressed tar (xz) is decompressed once, through 7-Zip, into the extraction cache after its
 * declared size passed the ratio limit, and the tar there is indexed and read the same way.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { ComicArchive } from "../../src/formats/comic-archive.ts";
import type { PluginContext } from "../../src/formats/contract.ts";
import { failure, throwIfAborted } from "../../src/formats/errors.ts";
import { ExtractionCache } from "../../src/formats/extraction-cache.ts";
import { type ImageSize, probeImageSize } from "../../src/formats/images.ts";
import { checkDeclaredRatio } from "../../src/formats/limits.ts";
import { looksLikeXz } from "../../src/formats/magic.ts";
import { extractAll, listArchive } from "../seven-zip/seven-zip.ts";
import { indexTar, type TarEntry } from "./tar-index.ts";

/**
 * Runs `read` on the path of the plain tar behind the book (the book itself, or its decompressed
 * copy in the caller's extraction cache: an archive kept open between requests uses the cache of
 * the request that reads it).
 */
type TarAccess = <T>(ctx: PluginContext, read: (tarPath: string) => Promise<T>) => Promise<T>;

export class TarComicArchive implements ComicArchive {
  readonly fileNames: readonly string[];
  private readonly entries: Map<string, TarEntry>;

  private constructor(
    entries: TarEntry[],
    private readonly withTar: TarAccess,
    /** The tar is the book's file itself: entries can be served as ranges of it. */
    private readonly plain: boolean,
  ) {
    this.entries = new Map(entries.map((entry) => [entry.name, entry]));
    this.fileNames = [...this.entries.keys()];
  }

  static async open(path: string, ctx: PluginContext): Promise<TarComicArchive> {
    throwIfAborted(ctx.signal);
    const head = await Bun.file(path).slice(0, 8).bytes();
    if (!looksLikeXz(head)) {
      const withTar: TarAccess = (_ctx, read) => read(path);
      return new TarComicArchive(await indexTar(path, ctx.limits), withTar, true);
    }
    const withTar = await decompressedTar(path, ctx);
    return new TarComicArchive(await withTar(ctx, (tarPath) => indexTar(tarPath, ctx.limits)), withTar, false);
  }

  uncompressedSize(name: string): number | null {
    return this.entries.get(name)?.size ?? null;
  }

  assertReadable(name: string): void {
    this.entry(name); // the sizes were checked against the limits while indexing
  }

  async probePageSizes(names: readonly string[], ctx: PluginContext): Promise<Map<string, ImageSize | null>> {
    return this.withTar(ctx, async (tarPath) => {
      const sizes = new Map<string, ImageSize | null>();
      for (const name of names) {
        throwIfAborted(ctx.signal);
        const entry = this.entry(name);
        sizes.set(name, await probeImageSize((byteCount) => readRange(tarPath, entry, byteCount)));
      }
      return sizes;
    });
  }

  read(name: string, ctx: PluginContext): Promise<Uint8Array> {
    throwIfAborted(ctx.signal);
    const entry = this.entry(name);
    return this.withTar(ctx, (tarPath) => readRange(tarPath, entry, entry.size));
  }

  async storedRange(name: string): Promise<{ offset: number; length: number } | null> {
    const entry = this.entry(name);
    return this.plain ? { offset: entry.offset, length: entry.size } : null;
  }

  readHead(name: string, byteCount: number, ctx: PluginContext): Promise<Uint8Array> {
    const entry = this.entry(name);
    return this.withTar(ctx, (tarPath) => readRange(tarPath, entry, byteCount));
  }

  private entry(name: string): TarEntry {
    const entry = this.entries.get(name);
    if (!entry) throw failure("page_extraction", "not_found", `Entry "${name}" is not in the archive`, { entry: name });
    return entry;
  }
}

function readRange(tarPath: string, entry: TarEntry, byteCount: number): Promise<Uint8Array> {
  return Bun.file(tarPath).slice(entry.offset, entry.offset + Math.min(byteCount, entry.size)).bytes();
}

/** Access to the decompressed tar of an xz-compressed book, kept in the extraction cache. */
async function decompressedTar(path: string, ctx: PluginContext): Promise<TarAccess> {
  const streams = await listArchive(path);
  const stream = streams[0];
  if (streams.length !== 1 || !stream || stream.size === null) {
    throw failure("parser", "unsupported", "The compressed tar does not declare its uncompressed size; it is not supported");
  }
  checkDeclaredRatio(ctx.limits, "The compressed tar", Bun.file(path).size, stream.size, { uncompressedSize: stream.size });
  const key = await ExtractionCache.keyFor(path);
  return (reader, read) =>
    reader.extractionCache.use(
      key,
      (folder) => extractAll(path, folder),
      async (folder) => {
        const files = (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isFile());
        const tar = files[0];
        if (files.length !== 1 || !tar) throw failure("parser", "corrupt", "The compressed tar could not be decompressed");
        return read(join(folder, tar.name));
      },
    );
}
