/**
 * Collections and read lists made at scan from ComicInfo (issue 33), on both databases:
 * SeriesGroup -> shared collections, StoryArc/StoryArcNumber and AlternateSeries/AlternateNumber
 * -> shared read lists in arc order. Two of the books carry real ComicInfo files from the
 * fixture corpus (comicbox's comicinfo.xml: StoryArc "Captain Arc,Other Arc" numbered "4,2",
 * AlternateSeries "Captain Science Alternate"; Kavita's ComicInfo2.xml: SeriesGroup "Hellboy").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "bun:test";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { fixture } from "../helpers/fixtures";
import { comicInfo, createLibrary, libraryRoot, makeCbz, scan, scanToCompletion } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("lists from ComicInfo at scan", (server) => {
  let admin: Record<string, string>;
  let restricted: Record<string, string>;
  let adminToken: string;
  let libraryId: string;
  const bookIds: Record<string, string> = {};
  const seriesIds: Record<string, string> = {};
  let root: string;

  const listsOf = async (kind: "collections" | "readlists", headers: Record<string, string>) => {
    const lists = (await server().json("GET", `/api/v1/${kind}?pageSize=500`, undefined, headers)).body.data as { id: string; name: string }[];
    const items: Record<string, string[]> = {};
    for (const list of lists) {
      const path = `/api/v1/${kind}/${list.id}/${kind === "collections" ? "series" : "books"}`;
      items[list.name] = (await server().json("GET", path, undefined, headers)).body.data.map((item: { id: string }) => item.id);
    }
    return items;
  };

  beforeAll(async () => {
    const session = await adminSession(server());
    adminToken = session.token;
    admin = bearer(adminToken);
    root = libraryRoot(server(), "Arcs");
    await makeCbz(join(root, "Captain Science", "Captain Science 1.cbz"), { seed: 1, comicInfo: readFileSync(fixture("samples/comicinfo/comicbox-comicinfo.xml"), "utf8") });
    await makeCbz(join(root, "Hellboy", "Hellboy 1.cbz"), { seed: 2, comicInfo: readFileSync(fixture("samples/comicinfo/kavita-ComicInfo2.xml"), "utf8") });
    await makeCbz(join(root, "Other", "Other 3.cbz"), {
      seed: 3,
      comicInfo: comicInfo({ Series: "Other", Number: 3, StoryArc: "Captain Arc", StoryArcNumber: 1, SeriesGroup: "Heroes" }),
    });
    await makeCbz(join(root, "Other", "Other 4.cbz"), {
      seed: 4,
      comicInfo: comicInfo({ Series: "Other", Number: 4, StoryArc: "captain arc", StoryArcNumber: "4.5", SeriesGroup: "heroes" }),
    });
    libraryId = (await createLibrary(server(), admin, { name: "Arcs", path: root })).id;
    await scanToCompletion(server(), adminToken, libraryId);
    const books = (await server().json("GET", `/api/v1/books?libraryId=${libraryId}`, undefined, admin)).body.data as { id: string; number: number; seriesId: string; seriesName: string }[];
    for (const book of books) {
      bookIds[`${book.seriesName} ${book.number}`] = book.id;
      seriesIds[book.seriesName] = book.seriesId;
    }
    const tag = (await server().json("POST", "/api/v1/sharing-tags", { name: "Other" }, admin)).body.id;
    await server().json("PUT", `/api/v1/series/${seriesIds.Other}/sharing-tags`, { sharingTagIds: [tag] }, admin);
    const userId = await createUser(server(), adminToken, "dora");
    await server().json("PUT", `/api/v1/users/${userId}/sharing-tags`, { sharingTagId: tag, accessMode: "deny" }, admin);
    restricted = bearer((await login(server(), "dora")).token);
  });

  test("SeriesGroup makes shared collections; StoryArc and AlternateSeries make read lists in arc order", async () => {
    expect(Object.keys(bookIds).length).toBe(4);
    const captain = bookIds["Captain Science 1"]!;
    expect(await listsOf("collections", admin)).toEqual({ Hellboy: [seriesIds.Hellboy!], Heroes: [seriesIds.Other!] });
    const readLists = await listsOf("readlists", admin);
    expect(readLists).toEqual({
      "Captain Arc": [bookIds["Other 3"]!, captain, bookIds["Other 4"]!],
      "Captain Science Alternate": [captain],
      "Other Arc": [captain],
    });
  });

  test("a rescan adds nothing twice, and each user sees only what their sharing tags allow", async () => {
    await scanToCompletion(server(), adminToken, libraryId);
    const again = await server().json("GET", "/api/v1/readlists?q=captain%20arc", undefined, admin);
    expect(again.body.total).toBe(1);
    expect(again.body.data[0].bookCount).toBe(3);
    const seen = await listsOf("readlists", restricted);
    expect(seen["Captain Arc"]).toEqual([bookIds["Captain Science 1"]!]);
    expect(Object.keys(await listsOf("collections", restricted))).toEqual(["Hellboy"]);
  });

  test("an admin's edits of imported lists hold over rescans (deep too); a new book naming the arc is still added", async () => {
    const listId = async (kind: "collections" | "readlists", name: string) =>
      ((await server().json("GET", `/api/v1/${kind}?q=${encodeURIComponent(name)}`, undefined, admin)).body.data as { id: string; name: string }[]).find((list) => list.name === name)!.id;
    const [o3, o4, captain] = [bookIds["Other 3"]!, bookIds["Other 4"]!, bookIds["Captain Science 1"]!];
    // Reordered with one book removed, another list renamed, a collection deleted.
    expect((await server().json("PATCH", `/api/v1/readlists/${await listId("readlists", "Captain Arc")}`, { bookIds: [o4, o3] }, admin)).status).toBe(200);
    expect((await server().json("PATCH", `/api/v1/readlists/${await listId("readlists", "Other Arc")}`, { name: "Renamed Arc" }, admin)).status).toBe(200);
    expect((await server().json("DELETE", `/api/v1/collections/${await listId("collections", "Hellboy")}`, undefined, admin)).status).toBe(204);
    const edited = { "Captain Arc": [o4, o3], "Captain Science Alternate": [captain], "Renamed Arc": [captain] };
    await scanToCompletion(server(), adminToken, libraryId);
    expect((await scan(server(), admin, libraryId, "deep")).status).toBe("completed");
    expect(await listsOf("readlists", admin)).toEqual(edited);
    expect(await listsOf("collections", admin)).toEqual({ Heroes: [seriesIds.Other!] });

    await makeCbz(join(root, "Other", "Other 5.cbz"), { seed: 5, comicInfo: comicInfo({ Series: "Other", Number: 5, StoryArc: "Captain Arc", StoryArcNumber: 2, SeriesGroup: "Heroes" }) });
    await scanToCompletion(server(), adminToken, libraryId);
    const o5 = ((await server().json("GET", `/api/v1/series/${seriesIds.Other}/books`, undefined, admin)).body.data as { id: string; number: number }[]).find((book) => book.number === 5)!.id;
    expect(await listsOf("readlists", admin)).toEqual({ ...edited, "Captain Arc": [o4, o3, o5] });
    expect(await listsOf("collections", admin)).toEqual({ Heroes: [seriesIds.Other!] });
  });
});
