/**
 * SIGTERM stops the server gracefully: a download under way when the signal arrives still
 * completes, new connections are refused, and the process exits 0. A download that outlasts
 * application.shutdown_timeout_seconds is cut, and the process still exits 0 (issue #11, item 8).
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { zipSync } from "fflate";
import { adminSession, bearer } from "../helpers/auth";
import { sha256 } from "../helpers/digests";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { booksOf, createLibrary, scan, tempFolder } from "../helpers/library";
import { jsonClient, requester } from "../helpers/server";

const started: Instances[] = [];
afterAll(async () => {
  for (const instances of started) await instances.stop();
});

/** A server process (src/main.ts serve) of its own with one 40 MiB book scanned; `application` adds settings. */
async function serverWithBigBook(application: Record<string, unknown> = {}) {
  const instances = await instancesOnOneDatabase("sqlite", { application });
  started.push(instances);
  const root = tempFolder();
  // 40 MiB of incompressible page data: long enough to be mid-transfer when the signal lands.
  const page = crypto.getRandomValues(new Uint8Array(1024 * 1024));
  const entries: Record<string, Uint8Array> = {};
  for (let index = 0; index < 40; index++) entries[`${String(index).padStart(3, "0")}.jpg`] = page;
  const file = join(root, "Big", "Big 001.cbz");
  await Bun.write(file, zipSync(entries, { level: 0 }));

  const { url, child } = await instances.start();
  const server = jsonClient(url);
  const auth = bearer((await adminSession(server)).token);
  const library = await createLibrary(server, auth, { name: "big", path: root });
  expect((await scan(server, auth, library.id)).status).toBe("completed");
  const [book] = await booksOf(server, auth, library.id);
  return { request: requester(url), child, file, auth, bookId: book!.id as string };
}

test("an in-flight download completes after SIGTERM; then the process exits 0", async () => {
  const { request, child, file, auth, bookId } = await serverWithBigBook();
  const download = await request(`/api/v1/books/${bookId}/file`, { headers: auth });
  const reader = download.body!.getReader();
  const first = await reader.read();
  let received = first.value?.length ?? 0;
  child.kill("SIGTERM");
  await Bun.sleep(50);
  const refused = await request("/health").then(() => false, () => true);
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(first.value!);
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    hasher.update(chunk.value);
    received += chunk.value.length;
  }
  expect(received).toBe(Bun.file(file).size);
  expect(hasher.digest("hex")).toBe(sha256(await Bun.file(file).bytes()));
  expect(refused).toBe(true);
  expect(await child.exited).toBe(0);
}, 60_000);

test("a download that outlasts the drain time is cut: the process exits 0 soon after SIGTERM", async () => {
  const { request, child, auth, bookId } = await serverWithBigBook({ shutdown_timeout_seconds: 2 });
  const download = await request(`/api/v1/books/${bookId}/file`, { headers: auth });
  const reader = download.body!.getReader();
  await reader.read(); // then a client that stops reading: the transfer cannot finish
  const signalled = performance.now();
  child.kill("SIGTERM");
  const code = await Promise.race([child.exited, Bun.sleep(15_000).then(() => "still running")]);
  expect(code).toBe(0);
  expect(performance.now() - signalled).toBeGreaterThan(1500);
  expect(performance.now() - signalled).toBeLessThan(10_000);
  await reader.cancel().catch(() => undefined);
}, 60_000);
