/**
 * Peak memory (max RSS) of `longbox analyze` on the known-broken or hostile fixtures listed in
 * the corpus's SOURCES.md (plus the PDFs with huge pages or images), each in a fresh process
 * of the compiled binary (built by build.ts, run alone with a minimal environment), against
 * the same binary analysing a small normal CBZ: the reference, measured in the same run,
 * interleaved. Peak RSS comes from GNU time (`/usr/bin/time -f %M`, in KiB).
 *
 * Then the server (`--part pages`): one fresh `longbox serve` per book, which scans it (with
 * its thumbnail) and then gets the book's first page at eight widths at once; peak RSS is the
 * server's VmHWM after the scan and after the page requests, against a normal scanned page
 * read the same way (the reference, same run).
 *
 *   bun bench/hostile-memory.ts [--runs 3] [--part analyze|pages|all]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildIsolatedBinary, type IsolatedBinary } from "../scripts/isolated-binary";
import type { AnalyzeReport } from "../src/formats/analyze-command";
import { zipSync } from "fflate";
import sharp from "sharp";
import { FIXTURES } from "../tests/helpers/fixtures";
import { pngHeader, writeInflatingPageCbz } from "../tests/helpers/hostile-pages";
import { markdownTable, median, ratio } from "./measure";
import { api, peakRssMiB, startBenchServer, type BenchServer } from "./server";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, part: { type: "string", default: "all" } } });
const runs = Number(values.runs);
const part = values.part;

const REFERENCE = "cbz/comicbox/Captain Science #001.cbz";
/** A normal PDF, for context: every PDF loads pdf.js and canvas, whatever its content. */
const NORMAL_PDF = "pdf/comicbox/test_cix.pdf";
/** SOURCES.md, "Known-broken or hostile files", then the PDFs with huge pages or images. */
const HOSTILE = [
  "cbz/zip2/invalid_offset.zip",
  "cbz/zip2/comment_garbage.zip",
  "cbz/kavita/empty.zip",
  "cbz/comicbox/Captain Science #001 (1950) The Beginning - nothing.cbz",
  "cbr/junrar/corrupt-header.rar",
  "cbr/junrar/loop.rar",
  "cbr/junrar/mainHeaderNull.rar",
  "cbr/junrar/parent-dir.rar",
  "cbr/junrar/rar5-links-hostile.rar",
  "cbr/junrar/rar7-md6g.rar",
  "cbr/junrar/m3-1gb-claim.rar",
  "cbr/kavita/winrar.rar",
  "epub/komga/zip-as-epub.epub",
  ...[
    "xref_command_missing",
    "helloworld-bad",
    "scan-bad",
    "issue15590",
    "poppler-67295-0",
    "poppler-85140-0",
    "issue9418",
    "REDHAT-1531897-0",
    "bug1020226",
    "Brotli-Prototype-FileA",
    "large_jpeg_downscale", // one 40000x512 px JPEG
    "issue19176", // /UserUnit 72: a page of 612x792 inches
  ].map((name) => `pdf/pdfjs/${name}.pdf`),
];

interface Measurement {
  peakKiB: number;
  seconds: number;
  outcome: string;
}

/** Runs `longbox analyze FILE` under GNU time in a fresh process; GNU time writes to `timeFile`. */
async function measure(binary: IsolatedBinary, timeFile: string, file: string): Promise<Measurement> {
  const child = Bun.spawn(["/usr/bin/time", "-o", timeFile, "-f", "%M %e", binary.path, "analyze", join(FIXTURES, file)], {
    cwd: binary.workDir,
    env: binary.env,
    stdout: "pipe",
    stderr: "inherit",
  });
  const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`longbox analyze ${file} exited with ${code}`);
  const [peakKiB, seconds] = readFileSync(timeFile, "utf8").trim().split(/\s+/).map(Number);
  const report = JSON.parse(stdout) as AnalyzeReport;
  const outcome = report.errors.length > 0 ? report.errors.map((error) => error.type).join(", ") : `${report.pageCount} page${report.pageCount === 1 ? "" : "s"}`;
  return { peakKiB: peakKiB!, seconds: seconds!, outcome };
}

/** Peak RSS of `longbox analyze` on each hostile fixture, against a normal CBZ. */
async function analyzePart(binary: IsolatedBinary): Promise<void> {
  const files = [REFERENCE, NORMAL_PDF, ...HOSTILE];
  const timeFile = join(binary.scratch("time"), "time.txt");
  // One run first, not counted: it unpacks the native addons into the cache folder.
  await measure(binary, timeFile, NORMAL_PDF);
  const results = new Map<string, Measurement[]>(files.map((file) => [file, []]));
  for (let run = 0; run < runs; run++) {
    for (const file of files) results.get(file)!.push(await measure(binary, timeFile, file));
  }

  const peak = (file: string) => median(results.get(file)!.map((result) => result.peakKiB));
  const reference = peak(REFERENCE);
  const rows = files.map((file) => {
    const measured = results.get(file)!;
    const label = file === REFERENCE ? `\`${file}\` (reference)` : file === NORMAL_PDF ? `\`${file}\` (normal PDF)` : `\`${file}\``;
    return [
      label,
      measured[0]!.outcome,
      `${(peak(file) / 1024).toFixed(0)} MiB`,
      ratio(peak(file), reference),
      `${median(measured.map((result) => result.seconds)).toFixed(2)} s`,
    ];
  });
  console.log(`Peak RSS of \`longbox analyze FILE\`, one fresh process per file, median of ${runs} runs:\n`);
  console.log(markdownTable(["file", "outcome", "peak RSS", "vs. reference", "wall time"], rows));
}

const PAGE_WIDTHS = [100, 200, 400, 640, 800, 1024, 1600, 2048];

/** The books of the server part: a normal scanned page, and pages that inflate to 200 MiB. */
const PAGE_BOOKS: { label: string; write: (path: string) => Promise<unknown> }[] = [
  {
    label: "normal 2400x3600 JPEG page (reference)",
    write: async (path) => {
      const image = sharp({ create: { width: 2400, height: 3600, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } });
      writeFileSync(path, zipSync({ "001.jpg": new Uint8Array(await image.jpeg({ quality: 85 }).toBuffer()) }, { level: 0 }));
    },
  },
  { label: "200 MiB of deflated filler named 001.png", write: (path) => writeInflatingPageCbz(path, 200) },
  { label: "PNG header claiming 4000x4000, then 200 MiB of filler", write: (path) => writeInflatingPageCbz(path, 200, pngHeader(4000, 4000)) },
  { label: "PNG header claiming 5200x5200, then 200 MiB of filler", write: (path) => writeInflatingPageCbz(path, 200, pngHeader(5200, 5200)) },
  { label: "PNG header claiming 16000x16000, then 200 MiB of filler", write: (path) => writeInflatingPageCbz(path, 200, pngHeader(16000, 16000)) },
];

interface PageMeasurement {
  idleMiB: number;
  scanPeakMiB: number;
  readPeakMiB: number;
  seconds: number;
  statuses: string;
}

/** A fresh server scans one book, then reads its first page at eight widths at once. */
async function measurePages(binary: IsolatedBinary, book: (typeof PAGE_BOOKS)[number]): Promise<PageMeasurement> {
  const folder = binary.scratch("pages");
  await book.write(join(folder, "Book 1.cbz"));
  const server: BenchServer = await startBenchServer(binary, "sqlite");
  try {
    const idleMiB = peakRssMiB(server.pid);
    const library = await api(server, "POST", "/api/v1/libraries", { name: "pages", path: folder });
    await api(server, "POST", `/api/v1/libraries/${library.id}/scan`);
    for (let status = { status: "" }; status.status !== "completed"; await Bun.sleep(50)) {
      status = await api(server, "GET", `/api/v1/libraries/${library.id}/scan-status`);
      if (status.status === "failed") throw new Error("the scan failed");
    }
    const scanPeakMiB = peakRssMiB(server.pid);
    const [bookRow] = (await api(server, "GET", `/api/v1/books?libraryId=${library.id}`)).data;
    const started = performance.now();
    const statuses = await Promise.all(
      PAGE_WIDTHS.map(async (width) => {
        try {
          const response = await fetch(`${server.url}/api/v1/books/${bookRow.id}/pages/1?width=${width}`, { headers: { authorization: `Bearer ${server.token}` } });
          await response.arrayBuffer();
          return String(response.status);
        } catch {
          // Bun closes a connection that stays silent past its idle timeout (10 s) while queued.
          return "closed";
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { idleMiB, scanPeakMiB, readPeakMiB: peakRssMiB(server.pid), seconds, statuses: [...new Set(statuses)].join(", ") };
  } finally {
    await server.stop();
  }
}

async function pagesPart(binary: IsolatedBinary): Promise<void> {
  const results = new Map(PAGE_BOOKS.map((book) => [book.label, [] as PageMeasurement[]]));
  for (let run = 0; run < runs; run++) {
    for (const book of PAGE_BOOKS) {
      console.error(`run ${run + 1}: ${book.label}`);
      results.get(book.label)!.push(await measurePages(binary, book));
    }
  }
  const of = (label: string, pick: (measurement: PageMeasurement) => number) => median(results.get(label)!.map(pick));
  const reference = PAGE_BOOKS[0]!.label;
  const rows = PAGE_BOOKS.map(({ label }) => [
    label,
    results.get(label)![0]!.statuses,
    `${of(label, (m) => m.idleMiB).toFixed(0)} MiB`,
    `${of(label, (m) => m.scanPeakMiB).toFixed(0)} MiB`,
    `${of(label, (m) => m.readPeakMiB).toFixed(0)} MiB`,
    ratio(of(label, (m) => m.readPeakMiB), of(reference, (m) => m.readPeakMiB)),
    `${of(label, (m) => m.seconds).toFixed(2)} s`,
  ]);
  console.log(`\nServer peak RSS (VmHWM): one fresh \`longbox serve\` per book, scan then page 1 at ${PAGE_WIDTHS.length} widths at once, median of ${runs} runs:\n`);
  console.log(markdownTable(["book", "page answers", "idle", "peak after scan", "peak after the 8 reads", "vs. reference", "8 reads took"], rows));
}

const binary = await buildIsolatedBinary();
try {
  if (part === "all" || part === "analyze") await analyzePart(binary);
  if (part === "all" || part === "pages") await pagesPart(binary);
} finally {
  binary.remove();
}
