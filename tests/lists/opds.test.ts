/**
 * Collections, read lists and want-to-read as OPDS 1.2 and OPDS 2 feeds (issue 33), on both
 * databases, for an admin and three users whose sharing tags differ (tests/lists/support.ts):
 * entries in the list's order, totals counting only what the reader may see, feeds valid
 * against the OPDS 1.2 RELAX NG schema (jing) and the OPDS 2 JSON schema.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { forEachDatabase } from "../helpers/server";
import { correctedSchemas, expectValidWithJing, opds2Validator, parseFeed } from "../opds/support";
import { buildListWorld, SEES, type ListWorld, type SeriesKey, type UserKey } from "./support";

const USERS: UserKey[] = ["admin", "alice", "bob", "carol"];

forEachDatabase("collections and read lists (OPDS)", (server) => {
  const schemas = correctedSchemas();
  const validator = opds2Validator();
  afterAll(() => schemas.remove());
  let world: ListWorld;
  let collectionId: string;
  let readListId: string;
  const COLLECTION: SeriesKey[] = ["Gamma", "Alpha", "Beta"];
  const READ_LIST: [SeriesKey, 0 | 1][] = [["Beta", 1], ["Alpha", 0], ["Gamma", 0], ["Alpha", 1]];
  const visibleSeries = (user: UserKey) => COLLECTION.filter((key) => SEES[user].includes(key)).map((key) => world.series[key].id);
  const visibleBooks = (user: UserKey) => READ_LIST.filter(([key]) => SEES[user].includes(key)).map(([key, index]) => world.series[key].books[index]);
  const atom = async (user: UserKey, path: string) => {
    const response = await server().fetch(`/opds/v1.2${path}`, { headers: world.headers[user] });
    expect(response.status).toBe(200);
    return response.text();
  };
  const json = async (user: UserKey, path: string) => (await server().json("GET", `/opds/v2${path}`, undefined, world.headers[user])).body;
  const idsOf = (xml: string) => (parseFeed(xml).entry ?? []).map((entry) => entry.id.replace("urn:uuid:", ""));

  beforeAll(async () => {
    world = await buildListWorld(server());
    const admin = world.headers.admin;
    collectionId = (await server().json("POST", "/api/v1/collections", { name: "Family", ordered: true, seriesIds: COLLECTION.map((key) => world.series[key].id) }, admin)).body.id;
    readListId = (await server().json("POST", "/api/v1/readlists", { name: "Event", bookIds: READ_LIST.map(([key, index]) => world.series[key].books[index]) }, admin)).body.id;
    await server().json("PUT", `/api/v1/want-to-read/${world.series.Alpha.id}`, undefined, world.headers.bob);
  });

  test("the root offers collections, read lists and want-to-read in both versions", async () => {
    const root = parseFeed(await atom("bob", "/catalog"));
    expect((root.entry ?? []).map((entry) => entry.title)).toEqual(expect.arrayContaining(["Collections", "Read lists", "Want to read"]));
    const titles = (await json("bob", "/catalog")).navigation.map((link: { title: string }) => link.title);
    expect(titles).toEqual(expect.arrayContaining(["Collections", "Read lists", "Want to read"]));
  });

  test("each reader gets only the series and books they may see, in the list's order, in both versions", async () => {
    for (const user of USERS) {
      const readList = await atom(user, `/readlists/${readListId}`);
      expect(idsOf(readList)).toEqual(visibleBooks(user));
      expect(Number(parseFeed(readList)["opensearch:totalResults"])).toBe(visibleBooks(user).length);
      const collection = await atom(user, `/collections/${collectionId}`);
      expect(idsOf(collection)).toEqual(visibleSeries(user));
      const lists = await atom(user, "/readlists");
      expect(idsOf(lists)).toEqual([readListId]);
      expectValidWithJing(schemas.opds, { readList, collection, lists }, schemas.dir);

      const readList2 = await json(user, `/readlists/${readListId}`);
      validator.validate(readList2);
      expect(readList2.publications.map((publication: { metadata: { identifier: string } }) => publication.metadata.identifier.replace("urn:uuid:", ""))).toEqual(visibleBooks(user));
      expect(readList2.metadata.numberOfItems).toBe(visibleBooks(user).length);
      const collection2 = await json(user, `/collections/${collectionId}`);
      validator.validate(collection2);
      expect(collection2.navigation.map((link: { href: string }) => link.href.split("/").pop())).toEqual(visibleSeries(user));
    }
  });

  test("a shared list holding nothing a reader may see is not in their feeds; want-to-read is each reader's own", async () => {
    const onlyGamma = (await server().json("POST", "/api/v1/collections", { name: "Only Gamma", seriesIds: [world.series.Gamma.id] }, world.headers.admin)).body.id;
    expect(idsOf(await atom("bob", "/collections"))).toEqual([collectionId]);
    expect(idsOf(await atom("carol", "/collections")).sort()).toEqual([collectionId, onlyGamma].sort());
    expect((await server().fetch(`/opds/v1.2/collections/${onlyGamma}`, { headers: world.headers.bob })).status).toBe(404);
    expect(idsOf(await atom("bob", "/want-to-read"))).toEqual([world.series.Alpha.id]);
    expect(idsOf(await atom("carol", "/want-to-read"))).toEqual([]);
    expect((await server().fetch("/opds/v1.2/readlists")).status).toBe(401);
  });
});
