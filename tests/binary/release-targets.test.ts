/**
 * Release binaries where they will run: each target is built with `build.ts --target`, copied
 * alone into an empty folder and started from there with no configuration (the first start
 * writes its own, on SQLite). It must answer /health, take the first-run setup, scan a library
 * of one CBZ, one EPUB and one PDF, and serve a page of each.
 *
 * The baseline x64 build (CPUs without AVX2) runs natively in the default suite. The arm64
 * build runs under qemu-user (Debian's qemu-user-static, with the arm64 C and C++ runtimes of
 * libc6-arm64-cross and libstdc++6-arm64-cross as its library root): minutes, so it runs only
 * when LONGBOX_TEST_TARGETS names it (`npm run test:arm64`, a step of its own in .ci/run).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startServerProcess } from "../../scripts/server-process";
import { buildIsolatedBinary, type IsolatedBinary } from "../../scripts/isolated-binary";
import { VERSION } from "../../src/version";
import { bearer, adminSession } from "../helpers/auth";
import { runProgram } from "../helpers/cli";
import { sha256 } from "../helpers/digests";
import { booksOf, createLibrary, placeFixture, scan } from "../helpers/library";
import { jsonClient } from "../helpers/server";

interface TargetRun {
  /** Runs the binary: natively, or under qemu-user for another architecture. */
  command(binary: string): string[];
  env: Record<string, string>;
  /** Emulation is slow: start and scan get this much more time. */
  slowness: number;
}

const ARM64_ROOT = "/usr/aarch64-linux-gnu";

const RUNS: Record<string, TargetRun> = {
  "linux-x64-baseline": { command: (binary) => [binary], env: {}, slowness: 1 },
  "linux-arm64": {
    command: (binary) => ["qemu-aarch64-static", binary],
    env: { QEMU_LD_PREFIX: ARM64_ROOT },
    slowness: 10,
  },
};

const TARGETS = (process.env.LONGBOX_TEST_TARGETS ?? "linux-x64-baseline").split(",").map((name) => name.trim());

const LIBRARY = {
  "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001.cbz",
  "Wasteland/wasteland.epub": "epub/idpf-built/wasteland.epub",
  "Tall/tall.pdf": "pdf/stump/tall.pdf",
};

for (const target of TARGETS) {
  const run = RUNS[target];
  if (!run) throw new Error(`no way to run target ${target} here; known: ${Object.keys(RUNS).join(", ")}`);

  describe(`release binary ${target}`, () => {
    let binary: IsolatedBinary;
    const timeout = (ms: number) => ms * run.slowness;

    beforeAll(async () => {
      binary = await buildIsolatedBinary({ target });
    }, 300_000);
    afterAll(() => binary?.remove());

    test("its .sha256 names the binary and matches it", () => {
      const digest = sha256(readFileSync(binary.path));
      expect(binary.checksum).toBe(`${digest}  longbox\n`);
    });

    test("--version names the version, commit, target and Bun", async () => {
      const result = await runProgram(run.command(binary.path).concat("--version"), {
        cwd: binary.workDir,
        env: { ...binary.env, ...run.env },
        timeoutMs: timeout(20_000),
      });
      expect(result.stderr).toBe("");
      const lines = result.stdout.trim().split("\n");
      expect(lines[0]).toBe(`longbox ${VERSION}`);
      expect(lines[1]).toMatch(/^commit [0-9a-f]{12}(-dirty)?$/);
      expect(lines[2]).toBe(`target ${target}`);
      expect(lines[3]).toBe(`bun ${Bun.version}`);
    }, 60_000 * run.slowness);

    test("alone in an empty folder: health, setup, a scan of CBZ, EPUB and PDF, a page of each", async () => {
      const libraryFolder = binary.scratch("library");
      for (const [target, source] of Object.entries(LIBRARY)) placeFixture(source, join(libraryFolder, target));
      const home = binary.scratch("home");
      mkdirSync(join(home, "work"));
      const { url, child } = await startServerProcess([...run.command(binary.path), "serve", "--port", "0"], {
        cwd: join(home, "work"),
        env: { ...binary.env, ...run.env },
        timeoutMs: timeout(20_000),
      });
      try {
        const server = jsonClient(url);
        const health = await fetch(`${url}/health`);
        expect(health.status).toBe(200);

        const { token } = await adminSession(server);
        const headers = bearer(token);
        const library = await createLibrary(server, headers, { name: "Release check", path: libraryFolder });
        const status = await scan(server, headers, library.id, "normal", timeout(30_000));
        expect(status).toMatchObject({ status: "completed", errors: 0 });

        const books = await booksOf(server, headers, library.id);
        expect(books.map((book) => book.fileFormat).sort()).toEqual(["cbz", "epub", "pdf"]);
        for (const book of books.filter((candidate) => candidate.fileFormat !== "epub")) {
          const page = await fetch(`${url}/api/v1/books/${book.id}/pages/1`, { headers });
          expect(page.status).toBe(200);
          expect(page.headers.get("content-type")).toStartWith("image/");
          expect((await page.arrayBuffer()).byteLength).toBeGreaterThan(1000);
        }
        // An EPUB is read through its publication: its first spine resource.
        const epub = books.find((book) => book.fileFormat === "epub")!;
        const manifest = await fetch(`${url}/api/v1/books/${epub.id}/manifest`, { headers });
        expect(manifest.status).toBe(200);
        const first = ((await manifest.json()) as { readingOrder: { href: string }[] }).readingOrder[0]!;
        const resource = await fetch(new URL(first.href, `${url}/api/v1/books/${epub.id}/manifest`), { headers });
        expect(resource.status).toBe(200);
        expect(await resource.text()).toContain("<html");
      } finally {
        child.kill("SIGTERM");
      }
      expect(await child.exited).toBe(0);
    }, 120_000 * run.slowness);
  });
}
