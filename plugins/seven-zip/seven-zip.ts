/**
 * 7-Zip 24.09 compiled to WebAssembly (the 7z-wasm package), used by the cb7 and cbt plugins
 * to list and extract 7z archives and to decompress .tar.xz/.tar.gz streams. No external 7z
 * program is involved: the wasm is embedded in the single executable.
 *
 * The module is a command-line program: each call mounts the book's folder (and, to extract to
 * disk, the target folder) into its virtual file system, runs one 7z command synchronously and
 * unmounts. Synchronous calls cannot interleave, so no queue is needed. The module is created
 * lazily on first use (about 150-250 ms) and kept; a C++ exception escaping 7z (a damaged or
 * header-encrypted archive) leaves the wasm stack in an unknown state, so the instance is then
 * dropped and a fresh one is created on the next call.
 */
import { basename, dirname } from "node:path";
import SevenZip, { type SevenZipModule } from "7z-wasm";
// Embedded into the compiled binary and loaded from there (see notes/single-binary.md).
import wasmPath from "7z-wasm/7zz.wasm" with { type: "file" };
import type { BookAnalysisError } from "../../src/formats/contract.ts";
import { failure } from "../../src/formats/errors.ts";

export interface SevenZipEntry {
  /** `/`-separated path inside the archive (empty for the single stream of an .xz file). */
  path: string;
  size: number | null;
  packedSize: number | null;
  encrypted: boolean;
  /** Solid block (folder) the entry is compressed in; null for empty files and folders. */
  block: number | null;
  isDirectory: boolean;
  /** A symbolic or hard link rather than a file with content. */
  isLink: boolean;
}

/** 7z's exit code for warnings only (the data is fine). */
const EXIT_WARNING = 1;
/**
 * Given on every command: 7z would otherwise prompt for a password on encrypted data and read
 * the server's stdin. With a wrong one it fails instead.
 */
const NO_PASSWORD = "-pLongboxHasNoPassword";
/** No progress lines, yes to every question, names taken literally (no wildcards). */
const QUIET_SWITCHES = ["-bd", "-y", "-spd"];
const COMMON_SWITCHES = [...QUIET_SWITCHES, NO_PASSWORD];
const BOOK_MOUNT = "/book";
const OUTPUT_MOUNT = "/output";
const MEMORY_OUTPUT = "/memory-output";

let instance: Promise<SevenZipModule> | undefined;
let output: string[] = [];

function sevenZip(): Promise<SevenZipModule> {
  instance ??= (async () => {
    const wasmBinary = await Bun.file(wasmPath).arrayBuffer();
    return SevenZip({ wasmBinary, print: (line) => output.push(line), printErr: (line) => output.push(line) });
  })();
  return instance;
}

/** Instances that ran the warm-up commands (warmSevenZip). */
const warmedUp = new WeakSet<SevenZipModule>();
/** Where the warm-up makes its archive, in the instance's in-memory file system. */
const WARM_UP_FOLDER = "/warm-up";

/**
 * Compiles and instantiates 7-Zip's WebAssembly now rather than on the first command (about
 * 0.3 s), then, once per instance, lists and extracts a small archive it makes in memory: the
 * first listing and extraction an instance runs take 15-20 ms longer than the next ones (the
 * engine compiling the code they run), which a book's first page would otherwise wait for.
 */
export async function warmSevenZip(): Promise<void> {
  const z = await sevenZip();
  if (warmedUp.has(z)) return;
  warmedUp.add(z);
  const archive = `${WARM_UP_FOLDER}/warm-up.7z`;
  const exitCodeBefore = process.exitCode;
  try {
    z.FS.mkdir(WARM_UP_FOLDER);
    z.FS.writeFile(`${WARM_UP_FOLDER}/page`, new Uint8Array(4096).fill(42));
    // Made without the password switch, which would encrypt it.
    z.callMain(["a", ...QUIET_SWITCHES, archive, `${WARM_UP_FOLDER}/page`]);
    z.callMain(["l", "-slt", "-ba", ...COMMON_SWITCHES, archive]);
    z.callMain(["e", `-o${MEMORY_OUTPUT}`, ...COMMON_SWITCHES, archive, "page"]);
  } catch {
    // An exception escaping 7z leaves the instance in an unknown state (see run).
    instance = undefined;
  } finally {
    process.exitCode = exitCodeBefore;
    output = [];
    removeTree(z, MEMORY_OUTPUT);
    removeTree(z, WARM_UP_FOLDER);
  }
}

/** Runs one 7z command with the book's folder at /book and `mounts` (mount point -> folder on disk). */
async function run<T>(bookPath: string, args: (archive: string) => string[], after: (z: SevenZipModule) => T, mounts: Record<string, string> = {}): Promise<{ result: T; exitCode: number; output: string[] }> {
  const z = await sevenZip();
  const mounted: string[] = [];
  const mount = (root: string, at: string) => {
    z.FS.mkdir(at);
    z.FS.mount(z.NODEFS, { root }, at);
    mounted.push(at);
  };
  // The wasm runtime sets process.exitCode on every command (it thinks it is a process).
  const exitCodeBefore = process.exitCode;
  output = [];
  try {
    mount(dirname(bookPath), BOOK_MOUNT);
    for (const [at, root] of Object.entries(mounts)) mount(root, at);
    let exitCode: number;
    try {
      exitCode = z.callMain(args(`${BOOK_MOUNT}/${basename(bookPath)}`)) as unknown as number;
    } catch {
      // 7z stopped with an uncaught C++ exception (it throws one for a wrong password on an
      // encrypted file list, and for some damaged headers): the instance cannot be trusted.
      instance = undefined;
      throw failure("parser", "corrupt", "The archive could not be read: it is damaged, or its file list is password protected");
    }
    return { result: after(z), exitCode, output };
  } finally {
    process.exitCode = exitCodeBefore;
    for (const at of mounted.reverse()) {
      try {
        z.FS.unmount(at);
        z.FS.rmdir(at);
      } catch {
        // a broken instance: it is dropped anyway
      }
    }
  }
}

function commandFailure(what: string, lines: string[]): BookAnalysisError {
  const errors = lines.filter((line) => /error|unexpected|wrong password|unsupported/i.test(line)).map((line) => line.trim());
  const message = errors.join("; ") || "7-Zip reported an error";
  if (/wrong password/i.test(message)) return failure("parser", "encrypted", `${what}: the archive is password protected`);
  if (/unsupported/i.test(message)) return failure("parser", "unsupported", `${what}: ${message}`);
  return failure("parser", "corrupt", `${what}: ${message}`);
}

/** The entries of an archive, as 7z's technical listing (`l -slt`) describes them. */
export async function listArchive(bookPath: string): Promise<SevenZipEntry[]> {
  const { exitCode, output: lines } = await run(bookPath, (archive) => ["l", "-slt", "-ba", ...COMMON_SWITCHES, archive], () => undefined);
  if (exitCode > EXIT_WARNING) throw commandFailure("The archive could not be listed", lines);
  return parseTechnicalListing(lines);
}

/** One entry's bytes, extracted in memory (in a solid block, the block is decompressed up to it). */
export async function extractEntry(bookPath: string, entryPath: string): Promise<Uint8Array> {
  const { result, exitCode, output: lines } = await run(
    bookPath,
    (archive) => ["e", `-o${MEMORY_OUTPUT}`, ...COMMON_SWITCHES, archive, entryPath],
    (z) => {
      try {
        const name = entryPath.slice(entryPath.lastIndexOf("/") + 1);
        return z.FS.readFile(`${MEMORY_OUTPUT}/${name}`);
      } catch {
        return null;
      } finally {
        removeTree(z, MEMORY_OUTPUT);
      }
    },
  );
  if (exitCode > EXIT_WARNING || !result) throw commandFailure(`Entry "${entryPath}" could not be extracted`, lines);
  return result;
}

/** Extracts the whole archive (keeping its folders) into `folder` on disk. */
export async function extractAll(bookPath: string, folder: string): Promise<void> {
  const { exitCode, output: lines } = await run(
    bookPath,
    (archive) => ["x", `-o${OUTPUT_MOUNT}`, ...COMMON_SWITCHES, archive],
    () => undefined,
    { [OUTPUT_MOUNT]: folder },
  );
  if (exitCode > EXIT_WARNING) throw commandFailure("The archive could not be extracted", lines);
}

function removeTree(z: SevenZipModule, path: string): void {
  let names: string[];
  try {
    names = z.FS.readdir(path);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === "." || name === "..") continue;
    const child = `${path}/${name}`;
    if (z.FS.isDir(z.FS.lstat(child).mode)) removeTree(z, child);
    else z.FS.unlink(child);
  }
  z.FS.rmdir(path);
}

/** Parses `Key = value` blocks separated by blank lines. */
function parseTechnicalListing(lines: readonly string[]): SevenZipEntry[] {
  const entries: SevenZipEntry[] = [];
  let fields = new Map<string, string>();
  const flush = () => {
    if (fields.has("Path") || fields.has("Size")) entries.push(entryFrom(fields));
    fields = new Map();
  };
  for (const line of lines) {
    if (line.trim() === "") {
      flush();
      continue;
    }
    const at = line.indexOf(" = ");
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 3));
    else if (line.endsWith(" =")) fields.set(line.slice(0, -2), "");
  }
  flush();
  return entries;
}

function entryFrom(fields: Map<string, string>): SevenZipEntry {
  const number = (key: string) => {
    const value = fields.get(key);
    return value === undefined || value === "" ? null : Number(value);
  };
  const attributes = fields.get("Attributes") ?? "";
  // "D drwxr-xr-x", "A -rw-r--r--", "A lrwxrwxrwx": Windows letters, then the Unix mode.
  const unixMode = attributes.split(" ")[1] ?? "";
  return {
    path: fields.get("Path") ?? "",
    size: number("Size"),
    packedSize: number("Packed Size"),
    encrypted: fields.get("Encrypted") === "+",
    block: number("Block"),
    isDirectory: fields.get("Folder") === "+" || attributes.startsWith("D") || unixMode.startsWith("d"),
    isLink: unixMode.startsWith("l") || fields.has("Symbolic Link") || fields.has("Hard Link"),
  };
}
