/**
 * The embedded-JPEG fast path runs on the server's thread before a PDF page is rendered in a
 * worker: a tiny file whose cross-reference stream claims millions of entries must be turned
 * away at once, not expanded into gigabytes of entries.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zlibSync } from "fflate";
import { embeddedJpegPage } from "../../plugins/pdf/embedded-jpeg-page.ts";

const dir = mkdtempSync(join(tmpdir(), "longbox-pdf-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("an xref stream claiming far more entries than the file has bytes is refused quickly", async () => {
  const rows = new Uint8Array(3 * 20_000_000).fill(1); // twenty million type-1 entries, 60 MB decoded
  const data = zlibSync(rows, { level: 9 });
  const head = "%PDF-1.5\n";
  const object = `1 0 obj\n<< /Type /XRef /W [1 1 1] /Size 20000000 /Length ${data.length} /Filter /FlateDecode >>\nstream\n`;
  const tail = `\nendstream\nendobj\nstartxref\n${head.length}\n%%EOF\n`;
  const bytes = new Uint8Array([...new TextEncoder().encode(head + object), ...data, ...new TextEncoder().encode(tail)]);
  expect(bytes.length).toBeLessThan(100_000);
  const path = join(dir, "crafted.pdf");
  writeFileSync(path, bytes);
  const started = performance.now();
  expect(await embeddedJpegPage(path, 1, 100_000_000)).toBeNull();
  // A hang guard: expanding every claimed entry took seconds and gigabytes.
  expect(performance.now() - started).toBeLessThan(2_000);
});
