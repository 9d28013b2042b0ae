/**
 * SIGTERM stops the server gracefully: a download under way when the signal arrives still
 * completes, new connections are refused, and the process exits 0. A download that outlasts
 * application.shutdown_timeout_seconds is cut, and the process still exits 0 (issue #11, item 8).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { startServerProcess } from "../../scripts/server-process";
import { PASSWORD } from "../helpers/auth";
import { PROJECT_ROOT } from "../helpers/cli";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { TEST_AUTH } from "../helpers/server";

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

/** A server process (src/main.ts serve) of its own with one 40 MiB book scanned; `application` adds settings. */
async function serverWithBigBook(application: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "longbox-shutdown-"));
  const database = await createTestDatabase("sqlite", join(dir, "data"));
  databases.push(database);
  const library = join(dir, "library", "Big");
  // 40 MiB of incompressible page data: long enough to be mid-transfer when the signal lands.
  const page = crypto.getRandomValues(new Uint8Array(1024 * 1024));
  const entries: Record<string, Uint8Array> = {};
  for (let index = 0; index < 40; index++) entries[`${String(index).padStart(3, "0")}.jpg`] = page;
  const file = join(library, "Big 001.cbz");
  await Bun.write(file, zipSync(entries, { level: 0 }));
  const configPath = join(dir, "config.yaml");
  writeFileSync(
    configPath,
    JSON.stringify({ application: { host: "127.0.0.1", port: 0, workers: 1, data_dir: join(dir, "data"), ...application }, database: database.config, auth: TEST_AUTH }),
  );

  const { url, child } = await startServerProcess([process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", configPath], {
    env: { PATH: process.env.PATH ?? "" },
  });
  const json = { "content-type": "application/json" };
  await fetch(`${url}/api/v1/setup`, { method: "POST", headers: json, body: JSON.stringify({ username: "admin", password: PASSWORD }) });
  const { token } = await (await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ username: "admin", password: PASSWORD }) })).json();
  const auth = { authorization: `Bearer ${token}` };
  const created = await (await fetch(`${url}/api/v1/libraries`, { method: "POST", headers: { ...auth, ...json }, body: JSON.stringify({ name: "big", path: join(dir, "library") }) })).json();
  const scan = await (await fetch(`${url}/api/v1/libraries/${created.id}/scan`, { method: "POST", headers: auth })).json();
  for (let status = scan; status.status !== "completed"; await Bun.sleep(20)) {
    status = await (await fetch(`${url}/api/v1/libraries/${created.id}/scan-status`, { headers: auth })).json();
  }
  const { data } = await (await fetch(`${url}/api/v1/books?libraryId=${created.id}`, { headers: auth })).json();
  return { url, child, file, auth, bookId: data[0].id as string };
}

test("an in-flight download completes after SIGTERM; then the process exits 0", async () => {
  const { url, child, file, auth, bookId } = await serverWithBigBook();
  const download = await fetch(`${url}/api/v1/books/${bookId}/file`, { headers: auth });
  const reader = download.body!.getReader();
  const first = await reader.read();
  let received = first.value?.length ?? 0;
  child.kill("SIGTERM");
  await Bun.sleep(50);
  const refused = await fetch(`${url}/health`).then(() => false, () => true);
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(first.value!);
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    hasher.update(chunk.value);
    received += chunk.value.length;
  }
  expect(received).toBe(Bun.file(file).size);
  expect(hasher.digest("hex")).toBe(new Bun.CryptoHasher("sha256").update(await Bun.file(file).bytes()).digest("hex"));
  expect(refused).toBe(true);
  expect(await child.exited).toBe(0);
}, 60_000);

test("a download that outlasts the drain time is cut: the process exits 0 soon after SIGTERM", async () => {
  const { url, child, auth, bookId } = await serverWithBigBook({ shutdown_timeout_seconds: 2 });
  const download = await fetch(`${url}/api/v1/books/${bookId}/file`, { headers: auth });
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
