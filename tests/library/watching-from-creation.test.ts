/**
 * A library is watched from its creation, even when it is made through a web process and
 * watched by another one (the process with jobs learns of it up to a refresh later): changes
 * made at creation, 0.7 s after it, during the first scan and at once after the first scan
 * (overwrites in place, a new folder of books, a deletion) are all catalogued by watch scans.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ServerProcess } from "../../scripts/server-process";
import { adminSession, bearer } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { booksOf, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { jsonClient, type JsonClient } from "../helpers/server";
import { waitFor } from "../helpers/server-processes";

/** A refresh of the libraries (5 s), the quiet window, the settle look, a scan: well under this. */
const CAUGHT_WITHIN_MS = 40_000;
const SERIES = ["Alpha", "Beta", "Gamma", "Delta"];

/** Two books per series, one page each: what is on disk before the changes. */
async function fill(root: string): Promise<void> {
  for (const [index, series] of SERIES.entries()) {
    for (const number of [1, 2]) await makeCbz(join(root, series, `${series} ${number}.cbz`), { pages: 1, seed: index * 10 + number });
  }
}

/** Every first book overwritten in place (3 pages), a new folder of books (2 pages), one book deleted. */
async function change(root: string): Promise<void> {
  for (const [index, series] of SERIES.entries()) await makeCbz(join(root, series, `${series} 1.cbz`), { pages: 3, seed: 100 + index });
  for (const number of [1, 2, 3]) await makeCbz(join(root, "Epsilon", `Epsilon ${number}.cbz`), { pages: 2, seed: 200 + number });
  rmSync(join(root, "Delta", "Delta 2.cbz"));
}

/** The catalogue once every change is in: file name -> page count. */
const EXPECTED = Object.fromEntries([
  ...SERIES.map((series) => [`${series} 1.cbz`, 3]),
  ...SERIES.filter((series) => series !== "Delta").map((series) => [`${series} 2.cbz`, 1]),
  ...[1, 2, 3].map((number) => [`Epsilon ${number}.cbz`, 2]),
]);

for (const kind of DATABASE_KINDS) {
  describe(`watching from a library's creation, made through a web process [${kind}]`, () => {
    let instances: Instances;
    let web: ServerProcess;
    let client: JsonClient;
    let admin: Record<string, string>;

    beforeAll(async () => {
      instances = await instancesOnOneDatabase(kind, { scanner: { watch_enabled: true, watch_quiet_seconds: 0.5 } });
      await instances.start("--role", "worker");
      web = await instances.start("--role", "web");
      client = jsonClient(web.url);
      admin = bearer((await adminSession(client)).token);
    }, 60_000);
    afterAll(async () => instances?.stop());

    const catalogue = async (libraryId: string) =>
      Object.fromEntries((await booksOf(client, admin, libraryId)).map((book) => [book.filePath.split("/").pop(), book.pageCount]));

    /** A library over a filled folder; `changeAt` makes the changes at its moment; every one must reach the catalogue. */
    const caught = async (name: string, changeAt: (root: string, libraryId: string) => Promise<void>) => {
      const root = join(tempFolder(), name);
      mkdirSync(root);
      await fill(root);
      const { id } = await createLibrary(client, admin, { name, path: root });
      await changeAt(root, id);
      let seen: Record<string, number> = {};
      try {
        await waitFor(async () => Bun.deepEquals((seen = await catalogue(id)), EXPECTED), name, CAUGHT_WITHIN_MS);
      } catch {
        expect({ moment: name, catalogue: seen }).toEqual({ moment: name, catalogue: EXPECTED });
      }
    };

    test("changes at creation, 0.7 s after, during and right after the first scan are all caught", async () => {
      await Promise.all([
        caught("at creation, no scan asked for", (root) => change(root)),
        caught("0.7 s after creation", async (root) => {
          await Bun.sleep(700);
          await change(root);
        }),
        caught("during the first scan", async (root, id) => {
          const started = await client.json("POST", `/api/v1/libraries/${id}/scan`, undefined, admin);
          expect(started.status).toBe(202);
          await change(root);
        }),
        caught("at once after the first scan", async (root, id) => {
          expect((await scan(client, admin, id, undefined, 30_000)).status).toBe("completed");
          await change(root);
        }),
      ]);
    }, 120_000);
  });
}
