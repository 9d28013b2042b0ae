/**
 * Reading benchmarks (issues 6 and 14), on the compiled binary run alone (scripts/isolated-binary.ts):
 *
 * 1. Page serving from CBZ books with pages of about 100 KB, 272 KB, 686 KB and 1.5 MB (a
 *    high-resolution scan, and above the 1 MiB from which Bun sends a file with sendfile: see
 *    ./send-path.ts), 16 concurrent clients (`wrk -c16`), against nginx (`sendfile on`, 2
 *    workers) serving the same bytes as a static file, and against the floor under any Bun
 *    server: a bare `Bun.serve` (one process, ./bun-floor.ts) sending the same bytes with
 *    nothing else to do. Runs alternate (nginx, Longbox, floor, twice) so that every side sees
 *    the same machine; each figure is the mean of its two runs. Before measuring, a plain
 *    request checks that each side answers 200 with exactly the page's bytes, and wrk's count
 *    of non-2xx/3xx answers must stay 0. The reader is a non-admin account whose sharing-tag
 *    grant admits the series, so every request is authenticated AND checked against
 *    visibility. Credentials: Bearer JWT for the four sizes; API key (X-API-Key), HTTP Basic with the password, and a
 *    304 revalidation (If-None-Match, against nginx's own 304) for the 272 KB page; then the
 *    three credentials on the 272 KB page against each other, their runs alternating.
 * 2. A 100-page, 50 MB CBR (RAR 4, stored entries): p50 and p99 of single page requests after the
 *    first, one client.
 * 3. p99 latency of the list endpoints on a 10,000-book catalogue, one client at a time
 *    (`wrk -c1 --latency`: the latency a person paging through the catalogue sees), and the
 *    same under 4 concurrent clients for the throughput: books, series, a series' books,
 *    libraries.
 *
 * Background thumbnail work is finished before anything is measured.
 *
 *   bun bench/reading.ts [--database sqlite|postgres] [--books 10000] [--seconds 5]
 *
 * Installs Debian's nginx-light and wrk when they are missing (apt-get, as root).
 */
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import sharp from "sharp";
import { buildIsolatedBinary } from "../scripts/isolated-binary";
import { interleaved, markdownTable, median, ratio, wrk, wrkWithCpu, type WrkResult } from "./measure";
import { noisyPage, startBunFloor, startNginx } from "./reference-pages";
import { api, scanToCompletion, startBenchServer, type BenchServer } from "./server";
import { ensureDebianTools } from "./tools";

const { values } = parseArgs({
  options: {
    database: { type: "string", default: "sqlite" },
    books: { type: "string", default: "10000" },
    seconds: { type: "string", default: "5" },
  },
});
const DATABASE = values.database === "postgres" ? "postgres" : "sqlite";
const BOOKS = Number(values.books);
const SECONDS = Number(values.seconds);
const WARM_UP_SECONDS = 2;
const PAGE_SIZES_KB = [100, 272, 686, 1500];
const READER_PASSWORD = "reader password";

/**
 * The reference cell: nginx, the bare Bun floor with Longbox's share of it, and the CPU time
 * each side's processes spent per request (all threads; nginx: its workers).
 */
const referenceCell = (label: string, nginx: WrkResult, floor: WrkResult, subject: WrkResult) =>
  `${label}: ${pageRate(nginx)}; bare Bun.serve: ${floor.requestsPerSecond.toFixed(0)} req/s (Longbox ${ratio(subject.requestsPerSecond, floor.requestsPerSecond)} of it, the floor ${ratio(floor.requestsPerSecond, nginx.requestsPerSecond)} of nginx); CPU per request: Longbox ${micros(subject)}, floor ${micros(floor)}, nginx ${micros(nginx)}`;
const micros = (result: WrkResult) => `${result.cpuMicrosPerRequest!.toFixed(0)} µs`;

/**
 * A RAR 4 archive of `pages` noisy pages stored without compression (method 0x30, what `rar a
 * -m0` writes, as comic scanners usually do: JPEG does not compress). Debian's `rar` is non-free,
 * so the few header fields are written here: marker, main header, one file header per page
 * (CRC16 = low half of a CRC32 over the header), end of archive.
 */
async function storedCbr(path: string, pages: number, pageKb: number): Promise<void> {
  const header = (type: number, flags: number, fields: Uint8Array) => {
    const body = new Uint8Array(5 + fields.length);
    const view = new DataView(body.buffer);
    view.setUint8(0, type);
    view.setUint16(1, flags, true);
    view.setUint16(3, 7 + fields.length, true);
    body.set(fields, 5);
    const block = new Uint8Array(2 + body.length);
    new DataView(block.buffer).setUint16(0, Bun.hash.crc32(body) & 0xffff, true);
    block.set(body, 2);
    return block;
  };
  const parts: Uint8Array[] = [new Uint8Array([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00]), header(0x73, 0, new Uint8Array(6))];
  for (let number = 1; number <= pages; number++) {
    const data = await noisyPage(pageKb, number % 50);
    const name = new TextEncoder().encode(`${String(number).padStart(3, "0")}.jpg`);
    const fields = new Uint8Array(25 + name.length);
    const view = new DataView(fields.buffer);
    view.setUint32(0, data.length, true); // packed size
    view.setUint32(4, data.length, true); // unpacked size
    view.setUint8(8, 3); // host OS: Unix
    view.setUint32(9, Bun.hash.crc32(data) >>> 0, true);
    view.setUint32(13, 0x5b210000, true); // DOS time: 2025-09-01
    view.setUint8(17, 29); // version needed: 2.9
    view.setUint8(18, 0x30); // method: store
    view.setUint16(19, name.length, true);
    view.setUint32(21, 0o100644 << 0, true); // Unix mode
    fields.set(name, 25);
    parts.push(header(0x74, 0x8000, fields), data); // 0x8000: data (ADD_SIZE) follows the header
  }
  parts.push(new Uint8Array([0xc4, 0x3d, 0x7b, 0x00, 0x40, 0x07, 0x00]));
  writeFileSync(path, Buffer.concat(parts));
}

/** Until the background thumbnail queue has made (or failed) one thumbnail per book. */
async function waitForThumbnails(server: BenchServer, books: number): Promise<void> {
  for (;;) {
    const { scans } = await api(server, "GET", "/api/v1/metrics");
    if (scans.thumbnailsPending === 0 && scans.thumbnailsMade + scans.thumbnailsFailed >= books) return;
    await Bun.sleep(200);
  }
}

/** Fails the run unless `url` answers `status` (and, for 200, exactly `expected`). */
async function expectAnswer(url: string, headers: Record<string, string>, status: number, expected?: Uint8Array): Promise<string> {
  const response = await fetch(url, { headers });
  const body = new Uint8Array(await response.arrayBuffer());
  if (response.status !== status) throw new Error(`${url} answered ${response.status}, not ${status}`);
  if (expected && Buffer.compare(body, expected) !== 0) throw new Error(`${url} did not answer the page's exact bytes`);
  return response.headers.get("etag") ?? "";
}

const pageRate = (result: WrkResult) => `${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors`;

await ensureDebianTools({ nginx: "nginx-light", wrk: "wrk" });
const binary = await buildIsolatedBinary();
const rows: string[][] = [];
try {
  const work = binary.scratch("reading");
  // nginx workers run as www-data and must reach the files: every folder on the way needs o+x.
  for (let folder = work; folder !== dirname(folder); folder = dirname(folder)) chmodSync(folder, statSync(folder).mode | 0o005);
  mkdirSync(join(work, "www"), { recursive: true });
  chmodSync(join(work, "www"), 0o755);

  // A library: a "Pages" series with one book per page size, a 100-page CBR, and BOOKS small
  // books in 100 series for the list endpoints.
  const library = join(work, "library");
  const pages = new Map<number, Uint8Array>();
  mkdirSync(join(library, "Pages"), { recursive: true });
  for (const [index, kilobytes] of PAGE_SIZES_KB.entries()) {
    const page = await noisyPage(kilobytes, index);
    pages.set(kilobytes, page);
    writeFileSync(join(work, "www", `${kilobytes}.jpg`), page);
    chmodSync(join(work, "www", `${kilobytes}.jpg`), 0o644);
    writeFileSync(join(library, "Pages", `Pages #${index + 1}.cbz`), zipSync({ "001.jpg": page }, { level: 0 }));
  }
  mkdirSync(join(library, "Rar"), { recursive: true });
  await storedCbr(join(library, "Rar", "Rar #1.cbr"), 100, 500);
  const small = new Uint8Array(await sharp({ create: { width: 60, height: 90, channels: 3, background: "#335577" } }).jpeg().toBuffer());
  for (let index = 0; index < BOOKS; index++) {
    const series = `Series ${String(index % 100).padStart(3, "0")}`;
    mkdirSync(join(library, series), { recursive: true });
    const entries: Record<string, Uint8Array> = { "id.txt": new TextEncoder().encode(String(index)), "001.jpg": small };
    writeFileSync(join(library, series, `${series} #${String(Math.floor(index / 100) + 1).padStart(3, "0")}.cbz`), zipSync(entries, { level: 0 }));
  }
  const totalBooks = BOOKS + PAGE_SIZES_KB.length + 1;

  const server = await startBenchServer(binary, DATABASE);
  const nginx = await startNginx(work);
  const floor = await startBunFloor(join(work, "www"));
  try {
    const created = await api(server, "POST", "/api/v1/libraries", { name: "bench", path: library });
    await scanToCompletion(server, created.id);
    await waitForThumbnails(server, totalBooks);

    // The reader: not an admin, allowed the "Pages" and "Rar" series through a sharing tag.
    const tag = await api(server, "POST", "/api/v1/sharing-tags", { name: "bench" });
    const reader = await api(server, "POST", "/api/v1/users", { username: "reader", password: READER_PASSWORD, role: "user" });
    await api(server, "PUT", `/api/v1/users/${reader.id}/sharing-tags`, { sharingTagId: tag.id, accessMode: "allow" });
    const { data: allSeries } = await api(server, "GET", "/api/v1/series?pageSize=200");
    const seriesId = (name: string) => allSeries.find((series: { name: string }) => series.name === name).id as string;
    for (const name of ["Pages", "Rar"]) await api(server, "PUT", `/api/v1/series/${seriesId(name)}/sharing-tags`, { sharingTagIds: [tag.id] });
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "reader", password: READER_PASSWORD }),
    });
    const readerToken = ((await login.json()) as { token: string }).token;
    const bearer = { authorization: `Bearer ${readerToken}` };
    const keyResponse = await fetch(`${server.url}/api/v1/api-keys`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench" }),
    });
    const apiKey = { "x-api-key": ((await keyResponse.json()) as { key: string }).key };
    const basic = { authorization: `Basic ${Buffer.from(`reader:${READER_PASSWORD}`).toString("base64")}` };
    const bookIn = async (series: string) => {
      const { data } = await api(server, "GET", `/api/v1/series/${seriesId(series)}/books?pageSize=10`);
      return data as { id: string; title: string; pageCount: number }[];
    };
    const pageBooks = await bookIn("Pages");

    const pageCases: [string, number, Record<string, string>][] = [
      ...PAGE_SIZES_KB.map((kilobytes): [string, number, Record<string, string>] => ["Bearer", kilobytes, bearer]),
      ["API key", 272, apiKey],
      ["Basic", 272, basic],
    ];
    for (const [credential, kilobytes, headers] of pageCases) {
      const page = pages.get(kilobytes)!;
      const book = pageBooks[PAGE_SIZES_KB.indexOf(kilobytes)]!;
      const url = `${server.url}/api/v1/books/${book.id}/pages/1`;
      const staticUrl = `${nginx.url}/${kilobytes}.jpg`;
      const floorUrl = `${floor.url}/${kilobytes}.jpg`;
      await expectAnswer(url, headers, 200, page);
      await expectAnswer(staticUrl, {}, 200, page);
      await expectAnswer(floorUrl, {}, 200, page);
      // Unmeasured: both Bun processes compile their hot code first, as a server running for a while has.
      await Promise.all([wrk(url, 16, WARM_UP_SECONDS, headers), wrk(floorUrl, 16, WARM_UP_SECONDS)]);
      const { reference, subject, bare } = await interleaved({
        reference: () => wrkWithCpu([nginx.pid], staticUrl, 16, SECONDS),
        subject: () => wrkWithCpu([server.pid], url, 16, SECONDS, headers),
        bare: () => wrkWithCpu([floor.pid], floorUrl, 16, SECONDS),
      });
      rows.push([
        `CBZ page ${(page.length / 1000).toFixed(0)} KB, ${credential}, 16 connections`,
        pageRate(subject),
        referenceCell("nginx, same bytes", reference, bare, subject),
        ratio(subject.requestsPerSecond, reference.requestsPerSecond),
        "≥ 0.80×",
      ]);
    }
    {
      // The three credentials on the same page, their runs alternating, so that the machine's
      // drift between rows cannot pass for a credential's cost (issue 27: API key and Basic
      // within 10% of Bearer).
      const book = pageBooks[PAGE_SIZES_KB.indexOf(272)]!;
      const url = `${server.url}/api/v1/books/${book.id}/pages/1`;
      for (const headers of [bearer, apiKey, basic]) await expectAnswer(url, headers, 200, pages.get(272)!);
      const credentials = await interleaved({
        bearer: () => wrkWithCpu([server.pid], url, 16, SECONDS, bearer),
        apiKey: () => wrkWithCpu([server.pid], url, 16, SECONDS, apiKey),
        basic: () => wrkWithCpu([server.pid], url, 16, SECONDS, basic),
      });
      for (const [credential, result] of [["API key", credentials.apiKey], ["Basic", credentials.basic]] as const) {
        rows.push([
          `CBZ page 272 KB, ${credential} against Bearer, runs alternating, 16 connections`,
          `${pageRate(result)}, CPU per request ${result.cpuMicrosPerRequest!.toFixed(0)} µs`,
          `Bearer: ${pageRate(credentials.bearer)}, CPU per request ${credentials.bearer.cpuMicrosPerRequest!.toFixed(0)} µs`,
          ratio(result.requestsPerSecond, credentials.bearer.requestsPerSecond),
          "≥ 0.90×",
        ]);
      }
    }
    {
      // Revalidation: the client holds the page; both sides answer 304 without a body.
      const book = pageBooks[PAGE_SIZES_KB.indexOf(272)]!;
      const url = `${server.url}/api/v1/books/${book.id}/pages/1`;
      const staticUrl = `${nginx.url}/272.jpg`;
      const floorUrl = `${floor.url}/272.jpg`;
      const etag = await expectAnswer(url, bearer, 200);
      const staticEtag = await expectAnswer(staticUrl, {}, 200);
      const floorEtag = await expectAnswer(floorUrl, {}, 200);
      await expectAnswer(url, { ...bearer, "if-none-match": etag }, 304);
      await expectAnswer(staticUrl, { "if-none-match": staticEtag }, 304);
      await expectAnswer(floorUrl, { "if-none-match": floorEtag }, 304);
      const { reference, subject, bare } = await interleaved({
        reference: () => wrkWithCpu([nginx.pid], staticUrl, 16, SECONDS, { "if-none-match": staticEtag }),
        subject: () => wrkWithCpu([server.pid], url, 16, SECONDS, { ...bearer, "if-none-match": etag }),
        bare: () => wrkWithCpu([floor.pid], floorUrl, 16, SECONDS, { "if-none-match": floorEtag }),
      });
      rows.push([
        "304 revalidation (If-None-Match), Bearer, 16 connections",
        pageRate(subject),
        referenceCell("nginx 304", reference, bare, subject),
        ratio(subject.requestsPerSecond, reference.requestsPerSecond),
        "≥ 0.80×",
      ]);
    }

    {
      // The CBR: the first request opens the archive; later ones should not read it again.
      const [cbr] = await bookIn("Rar");
      const size = statSync(join(library, "Rar", "Rar #1.cbr")).size;
      const times: number[] = [];
      let first = 0;
      for (let request = 0; request <= 200; request++) {
        const number = (request % cbr!.pageCount) + 1;
        const started = performance.now();
        const response = await fetch(`${server.url}/api/v1/books/${cbr!.id}/pages/${number}`, { headers: bearer });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`CBR page ${number}: ${response.status}`);
        if (request === 0) first = performance.now() - started;
        else times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      rows.push([
        `CBR page (${cbr!.pageCount} pages, ${(size / 1e6).toFixed(0)} MB, stored), one client`,
        `p50 ${median(times).toFixed(1)} ms, p99 ${times[Math.floor(times.length * 0.99)]!.toFixed(1)} ms`,
        `first request: ${first.toFixed(0)} ms`,
        "-",
        "p50 < 20 ms",
      ]);
    }

    const { data: seriesPage } = await api(server, "GET", "/api/v1/series?pageSize=1");
    const lists: [string, string][] = [
      ["GET /api/v1/books?pageSize=50", "/api/v1/books?pageSize=50"],
      ["GET /api/v1/books?pageSize=50&page=150", "/api/v1/books?pageSize=50&page=150"],
      ["GET /api/v1/books?q=series 042&pageSize=50", "/api/v1/books?q=series%20042&pageSize=50"],
      ["GET /api/v1/series?pageSize=50", "/api/v1/series?pageSize=50"],
      ["GET /api/v1/series/{id}/books?pageSize=50", `/api/v1/series/${seriesPage[0].id}/books?pageSize=50`],
      ["GET /api/v1/libraries", "/api/v1/libraries"],
    ];
    const admin = { authorization: `Bearer ${server.token}` };
    for (const [label, path] of lists) {
      await expectAnswer(`${server.url}${path}`, admin, 200);
      const single = await wrk(`${server.url}${path}`, 1, SECONDS, admin);
      const loaded = await wrk(`${server.url}${path}`, 4, SECONDS, admin);
      rows.push([
        `${label}, ${totalBooks} books`,
        `p99 ${single.p99Ms.toFixed(1)} ms, one client (${single.errors} errors)`,
        `4 clients: p99 ${loaded.p99Ms.toFixed(1)} ms, ${loaded.requestsPerSecond.toFixed(0)} req/s (${loaded.errors} errors)`,
        "-",
        "p99 < 50 ms",
      ]);
    }
  } finally {
    await nginx.stop();
    await floor.stop();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
} finally {
  binary.remove();
}

console.log(`\nReading on ${DATABASE} (${new Date().toISOString()})\n`);
console.log(markdownTable(["measure", "result", "reference (same run)", "ratio", "target"], rows));
