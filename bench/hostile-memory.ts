/**
 * Peak memory (max RSS) of `longbox analyze` on the known-broken or hostile fixtures listed in
 * the corpus's SOURCES.md (plus the PDFs with huge pages or images), each in a fresh process
 * of the compiled binary (built by build.ts, run alone with a minimal environment), against
 * the same binary analysing a small normal CBZ: the reference, measured in the same run,
 * interleaved. Peak RSS comes from GNU time (`/usr/bin/time -f %M`, in KiB).
 *
 *   bun bench/hostile-memory.ts [--runs 3]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildIsolatedBinary, type IsolatedBinary } from "../scripts/isolated-binary";
import type { AnalyzeReport } from "../src/formats/analyze-command";
import { FIXTURES } from "../tests/helpers/fixtures";
import { markdownTable, median, ratio } from "./measure";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const runs = Number(values.runs);

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

const binary = await buildIsolatedBinary();
try {
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
} finally {
  binary.remove();
}
