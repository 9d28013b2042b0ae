/** `longbox analyze` from source: its JSON lines, exit codes and configuration handling. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLongbox } from "../helpers/cli";
import { FIXTURES } from "../helpers/fixtures";

const CAPTAIN_SCIENCE = join(FIXTURES, "cbz/comicbox/Captain Science #001.cbz");
/** Content no plugin claims (a gzip stream), named like a book. */
const UNSUPPORTED = join(mkdtempSync(join(tmpdir(), "longbox-analyze-unknown-")), "unknown.cbz");
writeFileSync(UNSUPPORTED, new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4]));

const folders: string[] = [];
function emptyFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "longbox-analyze-"));
  folders.push(folder);
  return folder;
}
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

describe("longbox analyze", () => {
  test("one JSON line per file: format, pages, first page, embedded metadata, typed errors", async () => {
    const cwd = emptyFolder();
    const result = await runLongbox(["analyze", CAPTAIN_SCIENCE, UNSUPPORTED], { cwd });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [book, unsupported] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(book).toMatchObject({
      path: CAPTAIN_SCIENCE,
      format: "cbz",
      mediaType: "application/vnd.comicbook+zip",
      pageCount: 5,
      firstPage: { width: 114, height: 160, mediaType: "image/jpeg" },
      metadata: { source: "comicinfo", values: { series: "Captain Science", number: "1" } },
      errors: [],
    });
    expect(unsupported).toEqual({
      path: UNSUPPORTED,
      format: null,
      mediaType: null,
      pageCount: null,
      firstPage: null,
      metadata: null,
      errors: [{ type: "format_detection", message: expect.any(String) }],
    });
    // No configuration file: the defaults apply and none is written.
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("a missing file is reported on stderr with exit 1; the others are still analysed", async () => {
    const result = await runLongbox(["analyze", "/no/such/book.cbz", CAPTAIN_SCIENCE], { cwd: emptyFolder() });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("longbox: no such file: /no/such/book.cbz\n");
    expect(JSON.parse(result.stdout).pageCount).toBe(5);
  });

  test("the configuration's scanner limits apply; an explicit --config must exist", async () => {
    const dir = emptyFolder();
    const configPath = join(dir, "config.yaml");
    writeFileSync(configPath, "scanner:\n  max_entries: 2\n");
    const limited = await runLongbox(["analyze", "--config", configPath, CAPTAIN_SCIENCE], { cwd: dir });
    expect(limited.code).toBe(0);
    expect(JSON.parse(limited.stdout)).toMatchObject({ format: "cbz", pageCount: null, errors: [{ type: "parser" }] });

    const missing = await runLongbox(["analyze", "--config", join(dir, "nowhere.yaml"), CAPTAIN_SCIENCE], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("configuration file not found");
  });

  test("without a file it is a usage error (exit 2)", async () => {
    const result = await runLongbox(["analyze"], { cwd: emptyFolder() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("analyze needs at least one FILE");
  });
});
