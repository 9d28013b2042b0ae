/**
 * Read lists from ComicRack `.cbl` files through POST /api/v1/readlists/import (issue 33), on
 * both databases. The files have the shape of the community lists (DieselTech/CBL-ReadingLists,
 * as ComicRack writes them): xsd/xsi namespaces on <ReadingList>, <NumIssues>, <Book> with
 * Series/Number/Volume/Year attributes and <Database>, <Id>, <FileName> children, an empty
 * <Matchers />. Unmatched entries are reported by name; sharing tags decide what matches.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { comicInfo, libraryRoot, makeCbz, scan } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { buildListWorld, cbl, type CblEntry as Entry, type ListWorld, type SeriesKey, type UserKey } from "./support";

const EVENT: Entry[] = [
  { series: "Alpha", number: "1" },
  { series: "gamma", number: "1" },
  { series: "Beta", number: "2" },
  { series: "Alpha", number: "7" },
  { series: "Omega", number: "1", volume: "1985", year: "1986" },
  { series: "Alpha", number: "2.0" },
];

forEachDatabase("read lists from ComicRack .cbl files", (server) => {
  let world: ListWorld;
  const upload = (user: UserKey, body: string | Uint8Array<ArrayBuffer>, contentType = "application/xml") =>
    server().fetch("/api/v1/readlists/import", { method: "POST", body, headers: { ...world.headers[user], "content-type": contentType } });
  const bookOf = (key: SeriesKey, index: 0 | 1) => world.series[key].books[index];
  const bookIdsOf = async (user: UserKey, listId: string) =>
    (await server().json("GET", `/api/v1/readlists/${listId}/books`, undefined, world.headers[user])).body.data.map((book: { id: string }) => book.id);

  beforeAll(async () => {
    world = await buildListWorld(server());
  });

  test("an admin's import makes a shared list in the file's order and names what matched nothing", async () => {
    const response = await upload("admin", cbl("[Longbox] Crossover", EVENT));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.readList).toMatchObject({ name: "[Longbox] Crossover", shared: true, ordered: true, bookCount: 4 });
    expect(body.unmatched).toEqual([
      { series: "Alpha", number: "7", volume: "2020", year: "2020", reason: "no such number" },
      { series: "Omega", number: "1", volume: "1985", year: "1986", reason: "no such series" },
    ]);
    expect(await bookIdsOf("admin", body.readList.id)).toEqual([bookOf("Alpha", 0), bookOf("Gamma", 0), bookOf("Beta", 1), bookOf("Alpha", 1)]);
    // Carol does not see Alpha: the shared list shows her the rest, in order.
    expect(await bookIdsOf("carol", body.readList.id)).toEqual([bookOf("Gamma", 0), bookOf("Beta", 1)]);
    expect((await upload("admin", cbl("[Longbox] Crossover", EVENT))).status).toBe(409);
  });

  test("a user's import matches only what they may see, reports the rest as not found, and stays theirs", async () => {
    const response = await upload("bob", cbl("Bob's event", EVENT));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.readList).toMatchObject({ shared: false, bookCount: 2 });
    expect(body.unmatched.map((entry: Entry & { reason: string }) => `${entry.series} ${entry.number}: ${entry.reason}`)).toEqual([
      "gamma 1: no such series",
      "Beta 2: no such series",
      "Alpha 7: no such number",
      "Omega 1: no such series",
    ]);
    expect(await bookIdsOf("bob", body.readList.id)).toEqual([bookOf("Alpha", 0), bookOf("Alpha", 1)]);
    expect((await server().json("GET", `/api/v1/readlists/${body.readList.id}`, undefined, world.headers.carol)).status).toBe(404);
  });

  test("a file matching nothing creates nothing and lists every entry", async () => {
    const response = await upload("alice", cbl("Nothing here", [{ series: "Omega", number: "1" }]));
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.details.unmatched).toEqual([{ series: "Omega", number: "1", volume: "2020", year: "2020", reason: "no such series" }]);
    expect((await server().json("GET", "/api/v1/readlists?q=nothing", undefined, world.headers.alice)).body.total).toBe(0);
  });

  test("bad files are refused with a clear error: not XML, another root, no name, entities, too large", async () => {
    const before = (await server().json("GET", "/api/v1/readlists", undefined, world.headers.alice)).body.total;
    const refusals: [string | Uint8Array<ArrayBuffer>, number, string][] = [
      ["this is not xml <", 422, "not well-formed"],
      ['<?xml version="1.0"?><ComicInfo><Series>Alpha</Series></ComicInfo>', 422, "<ReadingList>"],
      ["<ReadingList><Books><Book Series=\"Alpha\" Number=\"1\"/></Books></ReadingList>", 422, "no <Name>"],
      ['<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "Alpha">]><ReadingList><Name>&x;</Name><Books/></ReadingList>', 422, "entities"],
      [new Uint8Array(1024 * 1024 + 1).fill(32), 413, "at most"],
    ];
    for (const [file, status, message] of refusals) {
      const response = await upload("alice", file);
      expect(response.status).toBe(status);
      expect((await response.json()).message).toContain(message);
    }
    expect((await server().json("GET", "/api/v1/readlists", undefined, world.headers.alice)).body.total).toBe(before);
    expect((await server().fetch("/api/v1/readlists/import", { method: "POST", body: cbl("x", EVENT) })).status).toBe(401);
  });

  test("entry numbers read as the scanner reads book numbers: an empty one matches no unnumbered book", async () => {
    // Delta: an unnumbered special and issue 3 (ComicInfo Number "3 (variant)": 3 to the scanner).
    const root = libraryRoot(server(), "Lists");
    await makeCbz(join(root, "Delta", "Delta Special.cbz"), { seed: 50, pages: 2, comicInfo: comicInfo({ Series: "Delta", Title: "Delta Special" }) });
    await makeCbz(join(root, "Delta", "Delta Three.cbz"), { seed: 51, pages: 2, comicInfo: comicInfo({ Series: "Delta", Number: "3 (variant)", Title: "Delta Three" }) });
    expect((await scan(server(), world.headers.admin, world.libraryId)).status).toBe("completed");
    const response = await upload("alice", cbl("Numbers", [{ series: "Delta", number: "" }, { series: "Delta", number: "3 (variant)" }]));
    expect(response.status).toBe(201);
    const body = await response.json();
    // Before: the empty number matched the special (unnumbered as the empty number read).
    expect(body.unmatched).toEqual([{ series: "Delta", number: "", volume: "2020", year: "2020", reason: "no such number" }]);
    const titles = (await server().json("GET", `/api/v1/readlists/${body.readList.id}/books`, undefined, world.headers.alice)).body.data.map((book: { title: string }) => book.title);
    expect(titles).toEqual(["Delta Three"]);
  });
});
