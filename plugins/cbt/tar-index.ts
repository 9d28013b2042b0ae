/**
 * Where each file of a tar archive lies: one pass over the headers (node-tar's Header class
 * decodes them, with pax extended headers and GNU long names), the offsets computed here
 * (data follows its 512-byte header and is padded to 512 bytes). Pages of a plain tar are then
 * read straight from the file, and sent zero-copy like stored ZIP pages.
 */
import { Header, Pax } from "tar";
import type { AnalysisLimits } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";
import { checkDeclaredEntrySize, checkEntryCount, checkEntryName, formatBytes } from "../../src/formats/limits.ts";

export interface TarEntry {
  name: string;
  /** Offset of the entry's data in the tar file. */
  offset: number;
  size: number;
}

const BLOCK = 512;
/** Pax headers and GNU long names are a few hundred bytes; anything larger is hostile. */
const MAX_META_BYTES = 1024 * 1024;
const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);
/** Headers that describe the next entry rather than being one. */
const META_TYPES = new Set(["ExtendedHeader", "GlobalExtendedHeader", "NextFileHasLongPath", "NextFileHasLongLinkpath"]);

export async function indexTar(path: string, limits: AnalysisLimits): Promise<TarEntry[]> {
  const file = Bun.file(path);
  const fileSize = file.size;
  const entries: TarEntry[] = [];
  let headers = 0;
  let extended: Pax | undefined;
  let globalExtended: Pax | undefined;
  let longPath: string | undefined;
  for (let offset = 0; offset + BLOCK <= fileSize; ) {
    const block = Buffer.from(await file.slice(offset, offset + BLOCK).arrayBuffer());
    // Decoded alone: pax values replace the ustar fields (prefix included) as node-tar's own
    // reader does, rather than through Header's merge, which would keep the ustar prefix.
    const header = new Header(block, 0);
    if (header.nullBlock) break;
    if (!header.cksumValid) {
      throw failure("parser", "corrupt", `The tar archive has a damaged header at byte ${offset}`, { offset });
    }
    checkEntryCount(limits, ++headers);
    const isMeta = META_TYPES.has(header.type);
    const size = (isMeta ? undefined : (extended?.size ?? globalExtended?.size)) ?? header.size ?? 0;
    const dataOffset = offset + BLOCK;
    if (dataOffset + size > fileSize) {
      throw failure("parser", "corrupt", `The tar archive is truncated: an entry ends past the end of the file`, { offset });
    }
    const readMeta = async (): Promise<string> => {
      if (size > MAX_META_BYTES) {
        throw failure("parser", "limit_exceeded", `The tar archive has a ${formatBytes(size)} extended header (limit ${formatBytes(MAX_META_BYTES)})`);
      }
      return file.slice(dataOffset, dataOffset + size).text();
    };
    switch (header.type) {
      case "ExtendedHeader":
        extended = Pax.parse(await readMeta(), extended, false);
        break;
      case "GlobalExtendedHeader":
        globalExtended = Pax.parse(await readMeta(), globalExtended, true);
        break;
      case "NextFileHasLongPath":
        longPath = (await readMeta()).replace(/\0.*$/s, "");
        break;
      case "NextFileHasLongLinkpath":
        break; // links are skipped anyway
      default: {
        // A regular file: recorded. Folders, links and devices: skipped (links are never followed).
        if (FILE_TYPES.has(header.type)) {
          const name = normalizeName(extended?.path ?? globalExtended?.path ?? longPath ?? header.path ?? "");
          checkEntryName(name);
          checkDeclaredEntrySize(limits, name, size, size);
          entries.push({ name, offset: dataOffset, size });
        }
        extended = undefined;
        longPath = undefined;
      }
    }
    offset = dataOffset + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (headers === 0) throw failure("parser", "corrupt", "The file is not a tar archive (no header was found)");
  return entries;
}

/** "./Pages/01.jpg" and "Pages/01.jpg" are the same entry. */
function normalizeName(name: string): string {
  return name.replace(/^(\.\/)+/, "");
}
