/**
 * The world of the list tests (issue 33): one library of three series of two books each,
 * Alpha (sharing tag T1), Beta (untagged) and Gamma (T2), an admin and three users whose grants
 * differ:
 *   alice: no grants, sees every series;
 *   bob: allowed T1, sees Alpha only;
 *   carol: denied T1, sees Beta and Gamma.
 * Books are real CBZ files (tests/helpers/library.ts) scanned through the API.
 */
import { join } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { createLibrary, libraryRoot, makeCbz, scanToCompletion, comicInfo } from "../helpers/library";
import type { TestServer } from "../helpers/server";

export type SeriesKey = "Alpha" | "Beta" | "Gamma";
export type UserKey = "admin" | "alice" | "bob" | "carol";
export const SERIES: SeriesKey[] = ["Alpha", "Beta", "Gamma"];
export const SEES: Record<UserKey, SeriesKey[]> = { admin: SERIES, alice: SERIES, bob: ["Alpha"], carol: ["Beta", "Gamma"] };

export interface ListWorld {
  libraryId: string;
  series: Record<SeriesKey, { id: string; books: [string, string] }>;
  headers: Record<UserKey, Record<string, string>>;
  userIds: Record<UserKey, string>;
  tagIds: Record<"T1" | "T2", string>;
}

export async function buildListWorld(server: TestServer): Promise<ListWorld> {
  const session = await adminSession(server);
  const admin = bearer(session.token);
  const root = libraryRoot(server, "Lists");
  let seed = 1;
  for (const name of SERIES) {
    for (const number of [1, 2]) {
      await makeCbz(join(root, name, `${name} ${number}.cbz`), { seed: seed++, pages: 2, comicInfo: comicInfo({ Series: name, Number: number, Title: `${name} ${number}`, Publisher: `${name} Press` }) });
    }
  }
  const library = await createLibrary(server, admin, { name: "Lists", path: root });
  await scanToCompletion(server, session.token, library.id);
  const seriesList = (await server.json("GET", `/api/v1/series?libraryId=${library.id}`, undefined, admin)).body.data as { id: string; name: string }[];
  const series = {} as ListWorld["series"];
  for (const name of SERIES) {
    const id = seriesList.find((entry) => entry.name === name)!.id;
    const books = (await server.json("GET", `/api/v1/series/${id}/books`, undefined, admin)).body.data as { id: string }[];
    series[name] = { id, books: [books[0]!.id, books[1]!.id] };
  }
  const tagIds = {} as ListWorld["tagIds"];
  for (const tag of ["T1", "T2"] as const) tagIds[tag] = (await server.json("POST", "/api/v1/sharing-tags", { name: tag }, admin)).body.id;
  await server.json("PUT", `/api/v1/series/${series.Alpha.id}/sharing-tags`, { sharingTagIds: [tagIds.T1] }, admin);
  await server.json("PUT", `/api/v1/series/${series.Gamma.id}/sharing-tags`, { sharingTagIds: [tagIds.T2] }, admin);
  const userIds = { admin: session.user.id } as ListWorld["userIds"];
  const headers: Partial<ListWorld["headers"]> = { admin };
  for (const name of ["alice", "bob", "carol"] as const) {
    userIds[name] = await createUser(server, session.token, name);
    headers[name] = bearer((await login(server, name)).token);
  }
  await server.json("PUT", `/api/v1/users/${userIds.bob}/sharing-tags`, { sharingTagId: tagIds.T1, accessMode: "allow" }, admin);
  await server.json("PUT", `/api/v1/users/${userIds.carol}/sharing-tags`, { sharingTagId: tagIds.T1, accessMode: "deny" }, admin);
  return { libraryId: library.id, series, headers: headers as ListWorld["headers"], userIds, tagIds };
}

/** An entry of a .cbl file: a book by series name, number, volume (start year) and year. */
export interface CblEntry {
  series: string;
  number: string;
  volume?: string;
  year?: string;
}

/**
 * A ComicRack .cbl file in the shape of the community lists (DieselTech/CBL-ReadingLists, as
 * ComicRack writes them): namespaces, <NumIssues>, <Book> with Series/Number/Volume/Year and
 * <Database>/<Id> children, an empty <Matchers />.
 */
export function cbl(name: string, entries: CblEntry[]): string {
  const books = entries
    .map(
      (entry, index) =>
        `<Book Series="${entry.series}" Number="${entry.number}" Volume="${entry.volume ?? "2020"}" Year="${entry.year ?? "2020"}">\n` +
        `<Database Name="cv" Series="${4000 + index}" Issue="${90000 + index}" />\n` +
        `<Id>00000000-0000-0000-0000-000000000000</Id>\n</Book>`,
    )
    .join("\n");
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    '<ReadingList xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
    `<Name>${name}</Name>\n<NumIssues>${entries.length}</NumIssues>\n<Books>\n${books}\n</Books>\n<Matchers />\n</ReadingList>\n`
  );
}
