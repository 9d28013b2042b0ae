/**
 * The thumbnail rendering step at several concurrencies (issue 14), for the durable thumbnail
 * jobs that run several at once: each job reads a book's cover from its CBZ through the format
 * registry, makes the x400 WebP thumbnail with sharp and writes it to a file, as the queue's
 * rendering step does (without the database writes). Against `vipsthumbnail` (Debian
 * libvips-tools) making the same thumbnails from the same cover bytes in the same run, in one
 * process. Rounds alternate the concurrencies, so that each sees the same machine.
 *
 *   bun bench/thumbnail-concurrency.ts [--books 300] [--concurrency 1,2,3] [--rounds 2]
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { builtinPlugins } from "../plugins/index.ts";
import { FormatRegistry } from "../src/formats/registry.ts";
import { generateLibrary, makePages } from "./generate";
import { loadAverage, markdownTable, ratio } from "./measure";
import { ensureDebianTools } from "./tools";

const { values } = parseArgs({
  options: {
    books: { type: "string", default: "300" },
    concurrency: { type: "string", default: "1,2,3" },
    rounds: { type: "string", default: "2" },
  },
});
const BOOKS = Number(values.books);
const CONCURRENCIES = values.concurrency.split(",").map(Number);
const ROUNDS = Number(values.rounds);

await ensureDebianTools({ vipsthumbnail: "libvips-tools" });
const root = mkdtempSync(join(tmpdir(), "longbox-thumbnail-bench-"));
const loadAtStart = loadAverage();
try {
  const pages = await makePages(20, 300, 450);
  const files = await generateLibrary(join(root, "library"), BOOKS, 10, pages);
  const covers = join(root, "covers");
  mkdirSync(covers);
  for (let index = 0; index < BOOKS; index++) await Bun.write(join(covers, `${index}.jpg`), pages[0]!);
  const registry = new FormatRegistry(builtinPlugins, { timeoutMs: 60_000 });

  /** Thumbnails per second of the rendering step over every book, `concurrency` at a time. */
  const render = async (concurrency: number, out: string): Promise<number> => {
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const index = next++;
        const bytes = await registry.thumbnail(files[index]!, { height: 400, format: "webp", coverPage: 1 });
        await writeFile(join(out, `${index}.webp`), bytes);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    return BOOKS / ((performance.now() - started) / 1000);
  };
  const vips = async (out: string): Promise<number> => {
    const started = performance.now();
    const child = Bun.spawn(["sh", "-c", `cd '${covers}' && ls | xargs vipsthumbnail --size x400 -o '${out}/%s.webp[Q=80]'`]);
    if ((await child.exited) !== 0) throw new Error("vipsthumbnail failed");
    return BOOKS / ((performance.now() - started) / 1000);
  };

  await render(1, mkdtempSync(join(root, "warm-"))); // loads sharp and the plugins
  const rates = new Map<string, number[]>();
  const record = (name: string, rate: number) => rates.set(name, [...(rates.get(name) ?? []), rate]);
  for (let round = 0; round < ROUNDS; round++) {
    record("vipsthumbnail", await vips(mkdtempSync(join(root, "vips-"))));
    for (const concurrency of CONCURRENCIES) record(`${concurrency}`, await render(concurrency, mkdtempSync(join(root, "longbox-"))));
  }
  const mean = (name: string) => rates.get(name)!.reduce((sum, rate) => sum + rate, 0) / ROUNDS;
  const reference = mean("vipsthumbnail");
  const rows = CONCURRENCIES.map((concurrency) => [
    `rendering step, ${concurrency} at a time`,
    `${mean(`${concurrency}`).toFixed(0)} /s`,
    `vipsthumbnail, same covers: ${reference.toFixed(0)} /s`,
    ratio(mean(`${concurrency}`), reference),
  ]);
  console.log(`\nThumbnail rendering, ${BOOKS} books, mean of ${ROUNDS} rounds (${new Date().toISOString()}; load average ${loadAtStart} at the start, ${loadAverage()} at the end)\n`);
  console.log(markdownTable(["measure", "result", "reference (same run)", "ratio"], rows));
} finally {
  rmSync(root, { recursive: true, force: true });
}
