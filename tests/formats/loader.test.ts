/**
 * Third-party plugins: a minimal tar plugin (id "ustar", files *.ustar, next to the built-in
 * cbt plugin) written into a temporary plugins folder is loaded, registered next to the
 * built-ins, and reads a tar file built here.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { loadPlugins, PluginLoadError } from "../../src/formats/loader.ts";
import { FormatRegistry } from "../../src/formats/registry.ts";
import { builtinPlugins } from "../../plugins/index.ts";
import { PROJECT_ROOT } from "../helpers/cli.ts";

const workDir = mkdtempSync(join(tmpdir(), "longbox-plugins-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The plugin as a third party would write it (see docs/plugins.md), importing the server's helpers. */
const TAR_PLUGIN = `
import { analyzeComicArchive, readComicPage } from "${PROJECT_ROOT}/src/formats/comic-archive.ts";
import { failure } from "${PROJECT_ROOT}/src/formats/errors.ts";
import { probeImageSize } from "${PROJECT_ROOT}/src/formats/images.ts";

const BLOCK = 512;
const isUstar = (head) => new TextDecoder().decode(head.subarray(257, 262)) === "ustar";

/** Regular files of a POSIX (ustar) tar, by name. */
function readTar(bytes) {
  const files = new Map();
  const text = (start, length) => new TextDecoder().decode(bytes.subarray(start, start + length)).replace(/\\0.*$/s, "");
  for (let at = 0; at + BLOCK <= bytes.length; ) {
    const name = text(at, 100);
    if (name === "") break;
    const size = Number.parseInt(text(at + 124, 12).trim() || "0", 8);
    const prefix = text(at + 345, 155);
    const type = text(at + 156, 1);
    if (type === "0" || type === "") files.set(prefix ? prefix + "/" + name : name, bytes.subarray(at + BLOCK, at + BLOCK + size));
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}

async function openTar(path) {
  const files = readTar(new Uint8Array(await Bun.file(path).arrayBuffer()));
  const entry = (name) => {
    const data = files.get(name);
    if (!data) throw failure("page_extraction", "not_found", "No entry " + name);
    return data;
  };
  return {
    fileNames: [...files.keys()],
    uncompressedSize: (name) => files.get(name)?.length ?? null,
    assertReadable: (name) => void entry(name),
    async probePageSizes(names) {
      return new Map(await Promise.all(names.map(async (name) => [name, await probeImageSize(async (n) => entry(name).subarray(0, n))])));
    },
    read: async (name) => entry(name),
  };
}

export default {
  id: "ustar",
  name: "Comic book archive (ustar, example)",
  extensions: ["ustar"],
  mediaTypes: ["application/x-ustar-comic"],
  detect: (head) => (isUstar(head) ? 2 : 0),
  analyze: async (path, ctx) => analyzeComicArchive(await openTar(path), { id: "ustar", mediaType: "application/x-ustar-comic" }, ctx),
  readPage: async (path, pageNumber, ctx, options) => readComicPage(await openTar(path), pageNumber, ctx, options),
};
`;

/** A minimal ustar archive. */
function tar(files: Record<string, Uint8Array>): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const [name, data] of Object.entries(files)) {
    const header = new Uint8Array(512);
    const put = (at: number, text: string) => header.set(new TextEncoder().encode(text), at);
    put(0, name);
    put(100, "0000644\0");
    put(108, "0000000\0");
    put(116, "0000000\0");
    put(124, `${data.length.toString(8).padStart(11, "0")}\0`);
    put(136, "00000000000\0");
    put(156, "0");
    put(257, "ustar\x0000");
    put(148, "        ");
    const checksum = header.reduce((sum, byte) => sum + byte, 0);
    put(148, `${checksum.toString(8).padStart(6, "0")}\0 `);
    blocks.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((sum, block) => sum + block.length, 0));
  let at = 0;
  for (const block of blocks) {
    out.set(block, at);
    at += block.length;
  }
  return out;
}

function pluginsFolder(name: string, files: Record<string, string>): string {
  const dir = join(workDir, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe("loading third-party plugins", () => {
  test("a tar plugin is loaded and reads a tar comic (its extension wins the tie with the built-in cbt)", async () => {
    const dir = pluginsFolder("good", { "ustar.js": TAR_PLUGIN, "README.txt": "not a plugin" });
    const plugins = await loadPlugins(dir);
    expect(plugins.map((plugin) => plugin.id)).toEqual(["ustar"]);

    const page = (width: number) => sharp({ create: { width, height: 30, channels: 3, background: "blue" } }).png().toBuffer();
    const book = join(workDir, "Tar Comic 001.ustar");
    writeFileSync(
      book,
      tar({
        "Tar Comic/page 10.png": new Uint8Array(await page(10)),
        "Tar Comic/page 2.png": new Uint8Array(await page(2)),
        "ComicInfo.xml": new TextEncoder().encode("<ComicInfo><Series>Tar Comic</Series><Number>1</Number></ComicInfo>"),
      }),
    );
    const registry = new FormatRegistry([...builtinPlugins, ...plugins]);
    expect(registry.extensions()).toContain("ustar");
    const analysis = await registry.analyze(book);
    expect(analysis.errors).toEqual([]);
    expect(analysis.format).toBe("ustar");
    expect(analysis.result?.pages.map((p) => [p.fileName, p.width])).toEqual([
      ["Tar Comic/page 2.png", 2],
      ["Tar Comic/page 10.png", 10],
    ]);
    expect(analysis.result?.metadata).toEqual({ source: "comicinfo", values: { series: "Tar Comic", number: "1" } });
    const thumbnail = await registry.thumbnail(book, { height: 15, format: "jpeg" });
    expect(await sharp(thumbnail).metadata()).toMatchObject({ format: "jpeg", width: 1, height: 15 });
  });

  test("a subfolder plugin is loaded from its index file", async () => {
    const dir = pluginsFolder("folder", { "ustar/index.js": TAR_PLUGIN });
    expect((await loadPlugins(dir)).map((plugin) => plugin.id)).toEqual(["ustar"]);
  });

  test("a missing plugins folder means no plugins", async () => {
    expect(await loadPlugins(join(workDir, "nowhere"))).toEqual([]);
  });

  test("an invalid plugin is refused with an error naming the file and the problems", async () => {
    const dir = pluginsFolder("invalid", { "broken.js": `export default { id: "Bad Id", name: "x", extensions: [".cbt"], mediaTypes: [], detect() {} };` });
    const error = await loadPlugins(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PluginLoadError);
    const message = (error as PluginLoadError).message;
    expect(message).toContain(join(dir, "broken.js"));
    for (const field of ["`id`", "`extensions`", "`mediaTypes`", "`analyze`", "`readPage`"]) expect(message).toContain(field);
  });

  test("a plugin that fails to import, or a folder without index, is refused naming it", async () => {
    const syntax = pluginsFolder("syntax", { "oops.js": "export default {" });
    await expect(loadPlugins(syntax)).rejects.toThrow(join(syntax, "oops.js"));
    const noIndex = pluginsFolder("no-index", { "plugin/other.js": TAR_PLUGIN });
    await expect(loadPlugins(noIndex)).rejects.toThrow(join(noIndex, "plugin"));
  });

  test("a plugin cannot take over a built-in id", async () => {
    const dir = pluginsFolder("hijack", { "cbz.js": TAR_PLUGIN.replace('id: "ustar"', 'id: "cbz"') });
    const plugins = await loadPlugins(dir);
    expect(() => new FormatRegistry([...builtinPlugins, ...plugins])).toThrow('claim the id "cbz"');
  });
});
