/**
 * Moving one book into another series' folder never renames that series (issue #11, item 3):
 * a series keeps the name it was created with, whatever the arriving book's metadata says, in
 * every series strategy. The moved book keeps its id.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

interface Case {
  strategy: string;
  /** Library-relative folders of the two series, and the metadata each folder's book carries. */
  from: string;
  to: string;
  info: (series: string) => Record<string, string | number>;
  names: [string, string];
}

const CASES: Case[] = [
  { strategy: "series_volume", from: "Series 31", to: "Series 45", info: (s) => ({ Series: s, Number: 1 }), names: ["Series 31", "Series 45"] },
  {
    strategy: "publisher_hierarchy",
    from: "Image/Series 31",
    to: "Image/Series 45",
    info: (s) => ({ Series: s, Number: 1 }),
    names: ["Series 31", "Series 45"],
  },
  { strategy: "flat", from: "Series 31", to: "Series 45", info: (s) => ({ Series: s, Number: 1 }), names: ["Series 31", "Series 45"] },
  // Calibre without a series in the metadata: each title folder is a series named by its title.
  { strategy: "calibre", from: "Author/Title 31 (1)", to: "Author/Title 45 (2)", info: (s) => ({ Title: s }), names: ["Title 31", "Title 45"] },
];

forEachDatabase("moving a book between series", (server) => {
  let admin: Record<string, string>;
  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
  });

  for (const [index, example] of CASES.entries()) {
    test(`${example.strategy}: the arriving book does not rename the series it joins`, async () => {
      const root = tempFolder();
      const [fromName, toName] = example.names;
      const moving = await makeCbz(join(root, example.from, "a.cbz"), { seed: 400 + index * 10, comicInfo: comicInfo(example.info(fromName)) });
      await makeCbz(join(root, example.from, "b.cbz"), { seed: 401 + index * 10, comicInfo: comicInfo(example.info(fromName)) });
      await makeCbz(join(root, example.to, "c.cbz"), { seed: 402 + index * 10, comicInfo: comicInfo(example.info(toName)) });
      const library = await createLibrary(server(), admin, { path: root, seriesStrategy: example.strategy });
      expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksAdded: 3 });
      const before = await booksOf(server(), admin, library.id);
      const movedBefore = before.find((book) => book.filePath === moving)!;
      const seriesNames = async () => {
        const { body } = await server().json("GET", `/api/v1/series?libraryId=${library.id}`, undefined, admin);
        return body.data.map((series: { name: string }) => series.name).sort();
      };
      expect(await seriesNames()).toEqual([fromName, toName]);

      const target = join(root, example.to, "a.cbz");
      mkdirSync(dirname(target), { recursive: true });
      renameSync(moving, target);
      expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksMoved: 1, booksAdded: 0 });
      expect(await seriesNames()).toEqual([fromName, toName]);
      const after = await booksOf(server(), admin, library.id);
      const moved = after.find((book) => book.filePath === target)!;
      expect(moved.id).toBe(movedBefore.id);
      const stayed = after.find((book) => book.filePath.endsWith("c.cbz"))!;
      expect(stayed.seriesName).toBe(toName);
    });
  }
});
