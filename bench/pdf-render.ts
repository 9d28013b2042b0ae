/**
 * PDF page rendering in the PDF worker pool (the plugin's readPage) against the same rendering
 * in the server's thread (renderPdfPage called directly, which is what readPage did before the
 * pool), interleaved in one run, from source:
 *
 * 1. Latency of one page, median of --runs, per fixture page that needs rendering.
 * 2. Responsiveness while pages render: the longest gap between ticks of a 10 ms timer in this
 *    thread, and the latency of HTTP requests to a Bun.serve in this thread, made every 10 ms
 *    by a client in another thread (so that its clock is not stopped by this one).
 * 3. The same while all the pages render at once (a reader paging while thumbnails are made).
 *
 *   bun bench/pdf-render.ts [--runs 5]
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AnalysisLimits } from "../src/formats/contract";
import { ExtractionCache } from "../src/formats/extraction-cache";
import { pdfPlugin } from "../plugins/pdf/index";
import { renderPdfPage } from "../plugins/pdf/page-render";
import { fixture } from "../tests/helpers/fixtures";
import { markdownTable, median, ratio } from "./measure";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const RUNS = Number(values.runs);

const LIMITS: AnalysisLimits = { maxEntryBytes: 256 * 1024 * 1024, maxEntries: 10_000, maxPixels: 100_000_000, maxCompressionRatio: 1000 };
/** Pages without an embedded JPEG (both ways render them), from fast to slow. */
const PAGES: [string, number][] = [
  ["pdfjs/alphatrans.pdf", 1],
  ["pdfjs/tracemonkey.pdf", 1],
  ["pdfjs/bug1997343.pdf", 1],
  ["pdfjs/issue12963.pdf", 1],
  ["pdfjs/Brotli-Prototype-FileA.pdf", 1],
  ["stump/tall.pdf", 1],
  ["pdfjs/large_jpeg_downscale.pdf", 1],
];

type Mode = "in-thread" | "worker";
/** PDF pages never go through the extraction cache. */
const UNUSED_CACHE = new ExtractionCache(join(tmpdir(), "longbox-bench-extraction-cache"), 0);
const MODES: Mode[] = ["in-thread", "worker"];

function render(mode: Mode, [name, page]: [string, number]): Promise<unknown> {
  const path = fixture(join("pdf", name));
  if (mode === "in-thread") return renderPdfPage(path, page, LIMITS);
  return pdfPlugin.readPage(path, page, { limits: LIMITS, signal: new AbortController().signal, extractionCache: UNUSED_CACHE });
}

/** A client in its own thread: GET `url` every 10 ms between "start" and "stop", then the latencies. */
const CLIENT_SOURCE = `
let running = false;
const latencies = [];
self.onmessage = async ({ data }) => {
  if (data.stop) return void (running = false);
  running = true;
  latencies.length = 0;
  while (running) {
    const started = performance.now();
    await (await fetch(data.url)).text();
    latencies.push(performance.now() - started);
    await Bun.sleep(10);
  }
  postMessage(latencies);
};`;

interface Responsiveness {
  wallMs: number;
  timerGapMs: number;
  httpMaxMs: number;
}

const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
const client = new Worker(URL.createObjectURL(new Blob([CLIENT_SOURCE], { type: "application/javascript" })));

/** Runs `work` while the timer ticks and the client asks this thread's server. */
async function observe(work: () => Promise<unknown>): Promise<Responsiveness> {
  const latencies = new Promise<number[]>((resolve) => client.addEventListener("message", (event) => resolve(event.data), { once: true }));
  client.postMessage({ url: server.url.href });
  await Bun.sleep(30); // the client's first request is under way
  let last = performance.now();
  let timerGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    timerGapMs = Math.max(timerGapMs, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  clearInterval(timer);
  client.postMessage({ stop: true });
  return { wallMs, timerGapMs: Math.max(timerGapMs, performance.now() - last), httpMaxMs: Math.max(...(await latencies)) };
}

// Warm-up: pdf.js and canvas load in this thread and in the worker.
for (const mode of MODES) await render(mode, PAGES[0]!);

const results = new Map<string, Record<Mode, Responsiveness[]>>();
for (let run = 0; run < RUNS; run++) {
  for (const page of PAGES) {
    for (const mode of run % 2 === 0 ? MODES : [...MODES].reverse()) {
      const key = `${page[0]} p${page[1]}`;
      const entry = results.get(key) ?? { "in-thread": [], worker: [] };
      entry[mode].push(await observe(() => render(mode, page)));
      results.set(key, entry);
    }
  }
  const key = `all ${PAGES.length} pages at once`;
  for (const mode of run % 2 === 0 ? MODES : [...MODES].reverse()) {
    const entry = results.get(key) ?? { "in-thread": [], worker: [] };
    entry[mode].push(await observe(() => Promise.all(PAGES.map((page) => render(mode, page)))));
    results.set(key, entry);
  }
}

const ms = (value: number) => `${Math.round(value)} ms`;
const medianOf = (samples: Responsiveness[], field: keyof Responsiveness) => median(samples.map((sample) => sample[field]));
const rows = [...results].map(([key, byMode]) => {
  const [inThread, worker] = [byMode["in-thread"], byMode.worker];
  return [
    key,
    ms(medianOf(inThread, "wallMs")),
    ms(medianOf(worker, "wallMs")),
    ratio(medianOf(worker, "wallMs"), medianOf(inThread, "wallMs")),
    `${ms(medianOf(inThread, "timerGapMs"))} / ${ms(medianOf(worker, "timerGapMs"))}`,
    `${ms(medianOf(inThread, "httpMaxMs"))} / ${ms(medianOf(worker, "httpMaxMs"))}`,
  ];
});
console.log(`${RUNS} runs, medians; in-thread reference / worker pool\n`);
console.log(
  markdownTable(["page", "in-thread", "worker", "vs. in-thread", "longest timer gap (in-thread / worker)", "slowest HTTP request (in-thread / worker)"], rows),
);
client.terminate();
await server.stop();
